/* A team whose first cycle ('A' or 'K') is told NORTH | EAST on turn 2: that cycle alone
 * makes no move and explodes; the others play on. */
#include "simple.h"

char *getName(void)
{
    return "Bad direction";
}

void init(struct InitData *data)
{
    simple_init(data);
}

void move(struct MoveData *data)
{
    simple_move(data);
    if (data->turn == 2 && data->myCycles != NULL)
        data->myCycles->direction = NORTH | EAST;
}
