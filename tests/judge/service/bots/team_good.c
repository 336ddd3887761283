/* A good team for the team course, written with the course's functions (docs/cteam.md):
 * every cycle steps to the free neighbour with the most room it can reach (a bounded
 * flood fill), avoiding cells next to an opponent's head. It keeps its own picture of
 * the court: walls, and each cycle's trail (freed when the cycle explodes). */
#include <string.h>

#include "tron.h"

static const int FLAGS[4] = {NORTH, EAST, SOUTH, WEST};
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};
static int width, height, myTeam;
static char wall[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];
static char owner[MAX_GRID_HEIGHT][MAX_GRID_WIDTH]; /* 0: free, else cycle index + 1 */

static int is_free(int x, int y)
{
    return x >= 0 && y >= 0 && x < width && y < height && !wall[y][x] && !owner[y][x];
}

static int room(int sx, int sy)
{
    static int stack[MAX_GRID_WIDTH * MAX_GRID_HEIGHT];
    static char seen[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];
    int n = 0, count = 0;
    memset(seen, 0, sizeof seen);
    stack[n++] = sy * MAX_GRID_WIDTH + sx;
    seen[sy][sx] = 1;
    while (n > 0 && count < 400) {
        int c = stack[--n], x = c % MAX_GRID_WIDTH, y = c / MAX_GRID_WIDTH;
        count++;
        for (int d = 0; d < 4; d++) {
            int nx = x + DX[d], ny = y + DY[d];
            if (is_free(nx, ny) && !seen[ny][nx]) {
                seen[ny][nx] = 1;
                stack[n++] = ny * MAX_GRID_WIDTH + nx;
            }
        }
    }
    return count;
}

char *getName(void)
{
    return "Roomy team";
}

void init(struct InitData *data)
{
    width = data->width;
    height = data->height;
    myTeam = data->myTeam;
    memset(wall, 0, sizeof wall);
    memset(owner, 0, sizeof owner);
    for (int k = 0; k < data->wallCount; k++)
        wall[data->walls[k].y][data->walls[k].x] = 1;
    for (int k = 0; k < data->cycleCount; k++)
        owner[data->cycles[k].y][data->cycles[k].x] = (char)(k + 1);
}

void move(struct MoveData *data)
{
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        if (c->alive) {
            owner[c->y][c->x] = (char)(k + 1);
        } else { /* an exploded cycle's trail vanishes */
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++)
                    if (owner[y][x] == k + 1)
                        owner[y][x] = 0;
        }
    }
    for (struct CycleMove *m = data->myCycles; m != NULL; m = m->next) {
        int best = 0, bestScore = -1000000;
        for (int d = 0; d < 4; d++) {
            int x = m->x + DX[d], y = m->y + DY[d];
            if (!is_free(x, y))
                continue;
            int score = room(x, y) * 8;
            for (int k = 0; k < data->cycleCount; k++) {
                const struct Cycle *c = &data->cycles[k];
                int far = (c->x - x) * (c->x - x) + (c->y - y) * (c->y - y);
                if (c->alive && c->team != myTeam && far <= 1)
                    score -= 1000; /* the opponent may take this cell too */
            }
            if (score > bestScore) {
                best = d;
                bestScore = score;
            }
        }
        m->direction = FLAGS[best];
        int x = m->x + DX[best], y = m->y + DY[best];
        if (is_free(x, y))
            owner[y][x] = 100; /* taken by this turn's earlier move */
    }
}
