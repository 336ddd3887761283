/* A team with a syntax error on line 9: compiling must name the file and the line. */
#include "tron.h"

char *getName(void)
{
    return "Broken";
}

void init(struct InitData *data) { (void)data }

void move(struct MoveData *data)
{
    (void)data;
}
