/* Placeholder program proving the native build runs under Maven with warnings as errors. */
#include <stdio.h>

int main(void)
{
    puts("vigil native build ok");
    return 0;
}
