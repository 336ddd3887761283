/* Shared by the test teams: a picture of the court and a first-free-step choice. */
#include <string.h>

#include "tron.h"

static const int SIMPLE_FLAGS[4] = {NORTH, EAST, SOUTH, WEST};
static const int SIMPLE_DX[4] = {0, 1, 0, -1};
static const int SIMPLE_DY[4] = {-1, 0, 1, 0};
static int simpleWidth, simpleHeight;
static char simpleTaken[MAX_GRID_HEIGHT][MAX_GRID_WIDTH]; /* walls and every head seen */

static void simple_init(const struct InitData *data)
{
    simpleWidth = data->width;
    simpleHeight = data->height;
    memset(simpleTaken, 0, sizeof simpleTaken);
    for (int k = 0; k < data->wallCount; k++)
        simpleTaken[data->walls[k].y][data->walls[k].x] = 1;
}

static int simple_free(int x, int y)
{
    return x >= 0 && y >= 0 && x < simpleWidth && y < simpleHeight && !simpleTaken[y][x];
}

/* Marks every live head, then gives each listed cycle its first free step. */
static void simple_move(struct MoveData *data)
{
    for (int k = 0; k < data->cycleCount; k++)
        if (data->cycles[k].alive)
            simpleTaken[data->cycles[k].y][data->cycles[k].x] = 1;
    for (struct CycleMove *m = data->myCycles; m != NULL; m = m->next) {
        m->direction = NORTH;
        for (int d = 0; d < 4; d++) {
            int x = m->x + SIMPLE_DX[d], y = m->y + SIMPLE_DY[d];
            if (simple_free(x, y)) {
                m->direction = SIMPLE_FLAGS[d];
                simpleTaken[y][x] = 1;
                break;
            }
        }
    }
}
