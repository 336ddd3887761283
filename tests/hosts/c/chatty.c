/* A team that printf()s in every function, without and with newlines: the text must
 * land in the bot's log and the protocol must not notice. */
#include <stdio.h>

#include "simple.h"

char *getName(void)
{
    printf("chatty getName\n");
    return "Chatty";
}

void init(struct InitData *data)
{
    printf("chatty init %dx%d team %d\n", data->width, data->height, data->myTeam);
    simple_init(data);
}

void move(struct MoveData *data)
{
    printf("chatty move turn %d", data->turn); /* no newline: the host flushes */
    puts("");
    fputs("{\"moves\":{}}\n", stdout); /* would be a reply if it reached the referee */
    simple_move(data);
}
