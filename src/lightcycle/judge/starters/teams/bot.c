/* A first team for the team course, in C: the course's three functions against tron.h
 * (docs/cteam.md), which the judge compiles into a library and plays for you. You never
 * read or write a protocol: init() is called once a game, move() once a turn.
 *
 * What you are told: init() gets the court (width, height, every wall cell), your team
 * (myTeam) and where every cycle starts; move() gets where every cycle's head is now
 * and whether it is alive, and myCycles, the list of your live cycles: set each one's
 * direction (NORTH, EAST, SOUTH or WEST). Only heads are given, so the team keeps its
 * own picture of the court: owner[y][x] says which cycle's trail holds a cell, and when
 * a cycle explodes its whole trail vanishes (the teams@1 rules), so we free its cells.
 *
 * How it plays: each cycle in turn takes the free cell next to it with the most room
 * behind it (the cells it could still reach: a flood fill), keeping away from cells an
 * enemy head could also enter this turn; between cells with as much room it hugs walls
 * and trails, so that it fills its room without leaving holes. A cell an earlier cycle
 * of ours chose this turn counts as taken, so the most hemmed-in cycles choose first:
 * the team relinks myCycles in that order, which is the order its moves are made in.
 * Make it smarter from here: use the jump, think about the enemy's room.
 *
 * Try it:  lightcycle match --ruleset teams --map court-small --bot cteam:bot.c
 *          --bot builtin:random
 * printf goes to the log: the host keeps stdout for itself.
 */
#include <string.h>

#include "tron.h"

#define FREE 0
#define TAKEN_NOW (MAX_CYCLES + 1) /* chosen by one of our cycles this turn */
#define ROOM_CAP 400               /* room beyond this makes no difference */

static const int FLAGS[4] = {NORTH, EAST, SOUTH, WEST};
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static int width, height, myTeam;
static char wall[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];
static int owner[MAX_GRID_HEIGHT][MAX_GRID_WIDTH]; /* FREE, or the cycle's index + 1 */
static int wasAlive[MAX_CYCLES];

static int is_free(int x, int y)
{
    return x >= 0 && y >= 0 && x < width && y < height && !wall[y][x] && owner[y][x] == FREE;
}

/* How many free cells can be reached from (sx, sy), up to ROOM_CAP: a flood fill. */
static int room(int sx, int sy)
{
    static char seen[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];
    static struct Point stack[MAX_GRID_WIDTH * MAX_GRID_HEIGHT];
    int n = 0, count = 0;
    memset(seen, 0, sizeof seen);
    seen[sy][sx] = 1;
    stack[n++] = (struct Point){sx, sy};
    while (n > 0 && count < ROOM_CAP) {
        struct Point p = stack[--n];
        count++;
        for (int d = 0; d < 4; d++) {
            int x = p.x + DX[d], y = p.y + DY[d];
            if (is_free(x, y) && !seen[y][x]) {
                seen[y][x] = 1;
                stack[n++] = (struct Point){x, y};
            }
        }
    }
    return count;
}

char *getName(void)
{
    return "Starter team";
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
    for (int k = 0; k < data->cycleCount; k++) {
        owner[data->cycles[k].y][data->cycles[k].x] = k + 1;
        wasAlive[k] = 1;
    }
}

/* Whether an enemy head is next to (x, y): it could enter that cell this turn too. */
static int contested(const struct MoveData *data, int x, int y)
{
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        if (c->alive && c->team != myTeam && (c->x - x) * (c->x - x) + (c->y - y) * (c->y - y) == 1)
            return 1;
    }
    return 0;
}

/* How many free cells are next to (x, y). */
static int exits(int x, int y)
{
    int n = 0;
    for (int d = 0; d < 4; d++)
        n += is_free(x + DX[d], y + DY[d]);
    return n;
}

/* Relink myCycles so that the cycles with the fewest ways out come first. */
static void fewest_exits_first(struct MoveData *data)
{
    struct CycleMove *order[MAX_CYCLES];
    int n = 0;
    for (struct CycleMove *m = data->myCycles; m != NULL && n < MAX_CYCLES; m = m->next)
        order[n++] = m;
    for (int i = 1; i < n; i++) /* an insertion sort: stable, and n is at most 10 */
        for (int j = i; j > 0; j--) {
            struct CycleMove *t = order[j];
            if (exits(t->x, t->y) >= exits(order[j - 1]->x, order[j - 1]->y))
                break;
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        order[i]->next = i + 1 < n ? order[i + 1] : NULL;
    data->myCycles = n > 0 ? order[0] : NULL;
}

void move(struct MoveData *data)
{
    /* bring our picture up to date: new heads are trail, exploded cycles' trails go */
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        if (c->alive) {
            owner[c->y][c->x] = k + 1;
        } else if (wasAlive[k]) {
            wasAlive[k] = 0;
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++)
                    if (owner[y][x] == k + 1)
                        owner[y][x] = FREE;
        }
    }
    for (int y = 0; y < height; y++) /* last turn's choices are heads now */
        for (int x = 0; x < width; x++)
            if (owner[y][x] == TAKEN_NOW)
                owner[y][x] = FREE;
    /* each of our cycles in turn (north when every way is blocked) */
    fewest_exits_first(data);
    for (struct CycleMove *m = data->myCycles; m != NULL; m = m->next) {
        int best = 0, bestScore = -1;
        for (int d = 0; d < 4; d++) {
            int x = m->x + DX[d], y = m->y + DY[d];
            if (!is_free(x, y)) /* a wall, a trail or a head: never go there */
                continue;
            int space = room(x, y);
            if (contested(data, x, y))
                space /= 4;
            int score = space * 8 + 4 - exits(x, y); /* the most room, then the fewest exits */
            if (score > bestScore) {
                best = d;
                bestScore = score;
            }
        }
        m->direction = FLAGS[best];
        int x = m->x + DX[best], y = m->y + DY[best];
        if (is_free(x, y))
            owner[y][x] = TAKEN_NOW; /* our later cycles keep out of it */
    }
}
