/* Starter bot for the sexp protocol (the Scheme course: Scheme data on lines). C99, libc
 * only. Build it and run it against a built-in bot, from the repository root:
 *
 *   cc -O2 -o examples/sexp/bot examples/sexp/bot.c && lightcycle match --map torus-20 --bot cmd:examples/sexp/bot --bot builtin:chaser --protocol sexp
 *
 * We speak first: our name on one line. Then the referee sends the board size "(W . H)"
 * and the walls "((X . Y) (X . Y) ...)" (maybe "()"), then each turn our position
 * "(X . Y)" and the opponent's, one per line; we answer n, e, s or w on a line. At the end
 * it sends "win", "loss" or "draw" instead of a position: then we stop.
 * The board is a torus: leaving one edge comes back in at the opposite edge. Only
 * positions are sent, so the bot remembers every cell it has seen taken: the trails.
 *
 * stdout carries the answers only: write diagnostics to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* north, east, south, west; y grows downwards, so north is y - 1 */
static const char MOVES[4] = {'n', 'e', 's', 'w'};
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static char *blocked = NULL; /* blocked[y * width + x]: wall or trail */
static int width = 1, height = 1;

/* The index of (x, y) wrapped round the torus. */
static int cell(int x, int y)
{
    return ((y % height + height) % height) * width + (x % width + width) % width;
}

/* Reads a line "(X . Y)"; returns 0 at "win", "loss", "draw" or the end of input. */
static int read_pair(int *x, int *y)
{
    char line[256];
    if (fgets(line, sizeof line, stdin) == NULL) {
        fprintf(stderr, "game over: end of input\n");
        return 0;
    }
    if (sscanf(line, " ( %d . %d )", x, y) != 2) {
        line[strcspn(line, "\r\n")] = '\0';
        fprintf(stderr, "game over: %s\n", line);
        return 0;
    }
    return 1;
}

/* Marks every (X . Y) of the wall list, read a character at a time (it may be long). */
static void read_walls(void)
{
    int ch, n = 0, count = 0, v[2];
    while ((ch = getchar()) != EOF && ch != '\n') {
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            ungetc(ch, stdin);
            if (scanf("%d", &v[n]) != 1)
                break;
            if (++n == 2) {
                blocked[cell(v[0], v[1])] = 1;
                n = 0;
                count++;
            }
        }
    }
    fprintf(stderr, "board %dx%d, %d walls\n", width, height, count);
}

/* The move (0-3) into a free cell with the most free neighbours; north if none. */
static int choose(int mx, int my)
{
    int best = 0, best_score = -1;
    for (int h = 0; h < 4; h++) {
        int x = mx + DX[h], y = my + DY[h], score = 0;
        if (blocked[cell(x, y)])
            continue;
        for (int e = 0; e < 4; e++)
            score += !blocked[cell(x + DX[e], y + DY[e])];
        if (score > best_score) {
            best = h;
            best_score = score;
        }
    }
    return best;
}

int main(void)
{
    int mx, my, hx, hy, turn = 0;
    printf("StarterC\n");
    fflush(stdout); /* the referee waits for our name before anything else */
    if (!read_pair(&width, &height) || width < 1 || height < 1)
        return 0;
    blocked = calloc((size_t)width * height, 1);
    if (blocked == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    read_walls();
    while (read_pair(&mx, &my) && read_pair(&hx, &hy)) {
        turn++;
        blocked[cell(mx, my)] = 1;
        blocked[cell(hx, hy)] = 1;
        int move = choose(mx, my);
        printf("%c\n", MOVES[move]);
        fflush(stdout); /* the referee waits for the answer: never leave it buffered */
        fprintf(stderr, "turn %d: at (%d . %d), answered %c\n", turn, mx, my, MOVES[move]);
    }
    free(blocked);
    return 0;
}
