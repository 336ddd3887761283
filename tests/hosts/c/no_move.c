/* A team that forgot move(): the library must be refused with a clear message. */
#include "tron.h"

TRON_FUNCTIONS(jane_doe_);

char *jane_doe_getName(void)
{
    return "Forgetful";
}

void jane_doe_init(struct InitData *data)
{
    (void)data;
}
