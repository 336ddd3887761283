/* A team that dereferences NULL on turn 3: its host dies, the seat is "crashed". */
#include <stdio.h>

#include "simple.h"

TRON_FUNCTIONS(crash_test_);

char *crash_test_getName(void)
{
    return "Segfault";
}

void crash_test_init(struct InitData *data)
{
    simple_init(data);
}

void crash_test_move(struct MoveData *data)
{
    if (data->turn == 3) {
        volatile int *nowhere = NULL;
        printf("about to crash on turn %d\n", data->turn);
        *nowhere = 42;
    }
    simple_move(data);
}
