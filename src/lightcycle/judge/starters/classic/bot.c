/* A first bot for the classic duel (the 2010 AI challenge's tron2010 protocol), in C.
 *
 * Every turn the judge writes the whole map: a line "W H", then H rows of W characters:
 * '1' is you, '2' your opponent, '#' a wall or a trail, ' ' free floor. You answer one
 * digit: 1 north, 2 east, 3 south, 4 west (y grows downwards, so north is y - 1).
 * Nothing marks the end of a game: your input just ends.
 *
 * How it plays: of the free cells next to it, it takes the one from which it reaches
 * the most cells before its opponent can (its "land": a breadth-first race), keeping
 * away from the cells the opponent could enter on the same turn (both cycles in one
 * cell: a draw). Between cells with as much land it hugs walls and trails (the fewest
 * free neighbours), so that it fills its room without leaving holes. Make it smarter
 * from here: look a few moves ahead.
 *
 * Try it:  gcc -O2 -o bot bot.c && lightcycle match --map chambers --bot cmd:./bot
 *          --bot builtin:random --protocol tron2010
 * Print to stderr to debug: stdout carries your moves only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 256     /* the largest map this bot reads */
#define FAR 1000000 /* "never reached" */

static const int DX[4] = {0, 1, 0, -1}; /* north, east, south, west */
static const int DY[4] = {-1, 0, 1, 0};

static int width, height;
static char map[MAX][MAX + 2];

/* Read one turn's map; 0 when the game is over (no more input). */
static int read_map(void)
{
    char line[MAX + 8];
    do {
        if (!fgets(line, sizeof line, stdin))
            return 0;
    } while (sscanf(line, "%d %d", &width, &height) != 2);
    if (width > MAX || height > MAX)
        exit(1);
    for (int y = 0; y < height; y++) {
        if (!fgets(line, sizeof line, stdin))
            return 0;
        int length = (int)strcspn(line, "\r\n"); /* a short row: the rest is floor */
        for (int x = 0; x < width; x++)
            map[y][x] = x < length ? line[x] : ' ';
    }
    return 1;
}

static int is_free(int x, int y)
{
    return x >= 0 && y >= 0 && x < width && y < height && map[y][x] == ' ';
}

/* A breadth-first search from (sx, sy): dist gets the moves to each free cell reached
 * strictly before limit says the opponent does (no limit: NULL); returns the cells
 * reached. */
static int distances(int sx, int sy, int dist[MAX][MAX], int limit[MAX][MAX])
{
    static int queue[MAX * MAX][2];
    int n = 1;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            dist[y][x] = FAR;
    dist[sy][sx] = 0;
    queue[0][0] = sx;
    queue[0][1] = sy;
    for (int k = 0; k < n; k++) { /* n grows as we go: cells in the order reached */
        int x = queue[k][0], y = queue[k][1];
        for (int d = 0; d < 4; d++) {
            int nx = x + DX[d], ny = y + DY[d];
            if (is_free(nx, ny) && dist[ny][nx] == FAR &&
                (limit == NULL || dist[y][x] + 1 < limit[ny][nx] - 1)) {
                dist[ny][nx] = dist[y][x] + 1;
                queue[n][0] = nx;
                queue[n][1] = ny;
                n++;
            }
        }
    }
    return n;
}

/* Where 'who' ('1': me, '2': the opponent) is on the map. */
static void find(char who, int *fx, int *fy)
{
    *fx = *fy = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            if (map[y][x] == who) {
                *fx = x;
                *fy = y;
            }
}

/* The heading to take this turn, 0 to 3 (north when every way is blocked). */
static int choose(void)
{
    static int theirs[MAX][MAX], mine[MAX][MAX];
    int x, y, ox, oy, best = 0, bestScore = -1;
    find('1', &x, &y);
    find('2', &ox, &oy);
    distances(ox, oy, theirs, NULL); /* how soon the opponent gets to each cell */
    for (int d = 0; d < 4; d++) {
        int nx = x + DX[d], ny = y + DY[d];
        if (!is_free(nx, ny)) /* a wall, a trail or a head: never go there */
            continue;
        /* (nx, ny) is one move away: a cell is mine if I get there before the opponent */
        int land = distances(nx, ny, mine, theirs);
        if (theirs[ny][nx] == 1) /* the opponent could step here too */
            land /= 4;
        int exits = 0;
        for (int e = 0; e < 4; e++)
            exits += is_free(nx + DX[e], ny + DY[e]);
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
    while (read_map()) {
        printf("%d\n", choose() + 1);
        fflush(stdout); /* the judge waits for your answer */
    }
    return 0;
}
