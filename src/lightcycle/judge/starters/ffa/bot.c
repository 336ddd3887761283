/* A first bot for the free-for-all (the aichallenge protocol: 2 to 26 players), in C.
 *
 * The judge first sends the set-up, one "key value" line each (no_rows, no_cols, bot_id:
 * your player number, "wrap 1" on a torus...), then "map" and the rows ('.' floor, '%'
 * wall, 'a', 'b'... the players' cycles) and "ready": answer "go". Each turn it sends
 * "turn N", one line "p ID ROW COL" per player still in the game and "go": answer n, e,
 * s or w. "end" says your game is over. Only heads are sent, so the bot remembers every
 * cell it has seen taken: a trail stays.
 *
 * How it plays: of the free cells next to it, it takes the one from which it reaches
 * the most cells before any other cycle can (its "land": a breadth-first race against
 * every other head), keeping away from the cells another head could enter on the same
 * turn (two cycles in one cell both crash). Between cells with as much land it hugs
 * walls and trails, so that it fills its room without leaving holes.
 *
 * Try it:  gcc -O2 -o bot bot.c && lightcycle match --map ffa4 --bot cmd:./bot
 *          --bot builtin:random --bot builtin:random --bot builtin:random
 *          --protocol aichallenge
 * Print to stderr to debug: stdout carries your answers only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 200      /* the largest map this bot plays */
#define FAR 1000000  /* "never reached" */

static const char NAMES[4] = {'n', 'e', 's', 'w'};
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static int width, height, wrap, me;
static char taken[MAX][MAX]; /* walls, trails and heads */
static int heads[26][2];     /* this turn's heads (x, y); -1: out */
static int theirs[MAX][MAX]; /* moves from the nearest other head */
static int mine[MAX][MAX];   /* moves from the cell being weighed */
static int queue[MAX * MAX][2];

/* The cell (x, y) moved one step towards d, wrapped round a torus; 0 when off the map
 * or taken. */
static int step(int x, int y, int d, int *nx, int *ny)
{
    *nx = x + DX[d];
    *ny = y + DY[d];
    if (wrap) {
        *nx = (*nx + width) % width;
        *ny = (*ny + height) % height;
    }
    return *nx >= 0 && *ny >= 0 && *nx < width && *ny < height && !taken[*ny][*nx];
}

/* A breadth-first search from the n cells of queue: dist gets the moves to each free
 * cell reached strictly before limit says another cycle does; returns the cells reached. */
static int distances(int n, int dist[MAX][MAX], int limit[MAX][MAX], int offset)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            dist[y][x] = FAR;
    for (int k = 0; k < n; k++)
        dist[queue[k][1]][queue[k][0]] = 0;
    for (int k = 0; k < n; k++) { /* n grows as we go: cells in the order reached */
        int x = queue[k][0], y = queue[k][1], nx, ny;
        for (int d = 0; d < 4; d++)
            if (step(x, y, d, &nx, &ny) && dist[ny][nx] == FAR &&
                (limit == NULL || dist[y][x] + 1 < limit[ny][nx] - offset)) {
                dist[ny][nx] = dist[y][x] + 1;
                queue[n][0] = nx;
                queue[n][1] = ny;
                n++;
            }
    }
    return n;
}

/* The answer this turn, 0 to 3 (north when every way is blocked). */
static int choose(void)
{
    int n = 0, best = 0, bestScore = -FAR, x = heads[me][0], y = heads[me][1];
    for (int p = 0; p < 26; p++)
        if (p != me && heads[p][0] >= 0) {
            queue[n][0] = heads[p][0];
            queue[n][1] = heads[p][1];
            n++;
        }
    distances(n, theirs, NULL, 0);
    for (int d = 0; d < 4; d++) {
        int cx, cy, ex, ey, exits = 0;
        if (!step(x, y, d, &cx, &cy)) /* a wall, a trail or a head: never go there */
            continue;
        queue[0][0] = cx; /* c is one move away, and the other heads start moving now */
        queue[0][1] = cy;
        int land = distances(1, mine, theirs, 1);
        if (theirs[cy][cx] == 1) /* another head could step here too: both would crash */
            land /= 4;
        for (int e = 0; e < 4; e++)
            exits += step(cx, cy, e, &ex, &ey);
        int score = land * 8 - exits; /* the most land first, then the fewest exits */
        if (score > bestScore) {
            best = d;
            bestScore = score;
        }
    }
    return best;
}

int main(void)
{
    char line[1024], key[64];
    int value, id, row, col;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "p %d %d %d", &id, &row, &col) == 3 && id >= 0 && id < 26) {
            heads[id][0] = col;
            heads[id][1] = row;
            taken[row][col] = 1;
        } else if (strncmp(line, "turn", 4) == 0) {
            memset(heads, -1, sizeof heads); /* players not listed are out */
        } else if (strncmp(line, "map", 3) == 0) { /* the rows follow */
            for (int y = 0; y < height && fgets(line, sizeof line, stdin); y++)
                for (int x = 0; x < width; x++)
                    taken[y][x] = line[x] != '.';
        } else if (strncmp(line, "ready", 5) == 0) {
            printf("go\n");
            fflush(stdout); /* the judge waits for your answer */
        } else if (strncmp(line, "go", 2) == 0) {
            printf("%c\n", NAMES[choose()]);
            fflush(stdout);
        } else if (strncmp(line, "end", 3) == 0) {
            break;
        } else if (sscanf(line, "%63s %d", key, &value) == 2) { /* set-up: key value */
            if (strcmp(key, "no_rows") == 0)
                height = value;
            else if (strcmp(key, "no_cols") == 0)
                width = value;
            else if (strcmp(key, "bot_id") == 0)
                me = value;
            else if (strcmp(key, "wrap") == 0)
                wrap = value;
            if (width > MAX || height > MAX)
                return 1;
        }
    }
    return 0;
}
