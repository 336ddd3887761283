/* A team with a typo on line 9: the judge shows gcc's line. */
#include "tron.h"

char *getName(void)
{
    return "Typo";
}

void init(struct InitData *data) { (void)data }

void move(struct MoveData *data)
{
    (void)data;
}
