#include <stdio.h>

int main(void)
{
    int x = ;
    return 0;
}
