/* An example team for lightcycle's C team interface (ruleset teams@1), written against
 * tron.h. C11, libc only. Play it from the repository root:
 *
 *   lightcycle match --ruleset teams --map court --bot cteam:examples/teams/tron_example.c --bot builtin:linebot --games 4
 *
 * How it plays. The host tells us only where every cycle's head is, so we keep our own
 * picture of the court: owner[y][x] is WALL, FREE, or the cycle whose trail holds the
 * cell. Each turn we first bring it up to date (a cycle that died loses its whole trail,
 * every live head is a new trail cell), then steer our cycles one by one:
 *
 *   - the cycle with the fewest free cells around it chooses first, and we relink
 *     myCycles in that order, so our moves are executed in the order we planned them;
 *   - a cell an earlier cycle of ours chose this turn counts as taken;
 *   - each free step is scored by a flood fill from it: the cells the cycle would reach
 *     ("room", counted up to ROOM_CAP) and, of those, the cells it would reach before
 *     any other cycle ("territory", counted four times); a step into a pocket of fewer
 *     than POCKET cells, or into a cell an enemy head can also enter this turn while
 *     our team has used more CPU time (we would lose that contest), loses a bonus;
 *     going straight on breaks ties;
 *   - a cycle whose best step leads into a pocket jumps over the trail that boxes it
 *     in, if it still has its jump and the jump lands in more room.
 *
 * The functions carry the course's prefix (here example_team_): rename it to yours.
 */
#include <string.h>

#include "tron.h"

TRON_FUNCTIONS(example_team_);

#define FREE 0
#define WALL (-1)
#define POCKET 24    /* an area smaller than this is a trap */
#define ROOM_CAP 160 /* room beyond this many cells makes no difference */

typedef char Grid[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];
typedef int Distances[MAX_GRID_HEIGHT][MAX_GRID_WIDTH];

static const int FLAGS[4] = {NORTH, EAST, SOUTH, WEST};
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static int width, height, myTeam, cycleCount;
static signed char owner[MAX_GRID_HEIGHT][MAX_GRID_WIDTH]; /* WALL, FREE or cycle + 1 */
static char names[MAX_CYCLES];                             /* names[k]: cycle k's name */
static int wasAlive[MAX_CYCLES];
static int lastDir[MAX_CYCLES]; /* index into FLAGS of each cycle's last move */

static Grid claimed;           /* cells our cycles chose earlier this turn */
static Grid danger;            /* cells an enemy head can enter this turn */
static Distances distOthers;   /* steps from the nearest other cycle's head, -1: none */
static Distances distMine;     /* steps from the cell being scored, -1: unreachable */
static struct Point queue[MAX_GRID_WIDTH * MAX_GRID_HEIGHT];

static int inside(int x, int y)
{
    return x >= 0 && y >= 0 && x < width && y < height;
}

static int taken(int x, int y) /* a wall, a trail or a cell claimed this turn */
{
    return !inside(x, y) || owner[y][x] != FREE || claimed[y][x];
}

static int freeSteps(int x, int y)
{
    int n = 0;
    for (int d = 0; d < 4; d++)
        n += !taken(x + DX[d], y + DY[d]);
    return n;
}

/* Breadth-first search from the tail cells already in queue[] (their dist[] set); returns
 * how many cells were reached, the seeds included. */
static int spread(Distances dist, int tail)
{
    int head = 0;
    while (head < tail) {
        struct Point p = queue[head++];
        for (int d = 0; d < 4; d++) {
            int nx = p.x + DX[d], ny = p.y + DY[d];
            if (taken(nx, ny) || dist[ny][nx] >= 0)
                continue;
            dist[ny][nx] = dist[p.y][p.x] + 1;
            queue[tail].x = nx;
            queue[tail].y = ny;
            tail++;
        }
    }
    return tail;
}

/* distOthers[][] from the heads of every live cycle but cycle self */
static void measureOthers(const struct MoveData *data, int self)
{
    int tail = 0;
    memset(distOthers, -1, sizeof distOthers);
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        if (!c->alive || k == self)
            continue;
        distOthers[c->y][c->x] = 0;
        queue[tail].x = c->x;
        queue[tail].y = c->y;
        tail++;
    }
    spread(distOthers, tail);
}

/* The cells reachable from (x, y) (its room) and, in *territory, how many of them a
 * cycle entering (x, y) now reaches before every other cycle. 0 if (x, y) is taken. */
static int room(int x, int y, int *territory)
{
    *territory = 0;
    if (taken(x, y))
        return 0;
    memset(distMine, -1, sizeof distMine);
    distMine[y][x] = 1;
    queue[0].x = x;
    queue[0].y = y;
    int reached = spread(distMine, 1);
    for (int i = 0; i < reached; i++) {
        int cx = queue[i].x, cy = queue[i].y;
        if (distOthers[cy][cx] < 0 || distMine[cy][cx] < distOthers[cy][cx])
            ++*territory;
    }
    return reached;
}

static int indexOf(char name) /* the index of the cycle called name, -1 if none */
{
    for (int k = 0; k < cycleCount; k++)
        if (names[k] == name)
            return k;
    return -1;
}

char *example_team_getName(void)
{
    return "Example team (territory)";
}

void example_team_init(struct InitData *data)
{
    width = data->width;
    height = data->height;
    myTeam = data->myTeam;
    cycleCount = data->cycleCount;
    memset(owner, FREE, sizeof owner);
    for (int k = 0; k < data->wallCount; k++)
        owner[data->walls[k].y][data->walls[k].x] = WALL;
    for (int k = 0; k < cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        names[k] = c->name;
        wasAlive[k] = c->alive;
        lastDir[k] = c->y < height / 2 ? 2 : 0; /* start towards the other side */
        if (c->alive)
            owner[c->y][c->x] = (signed char)(k + 1);
    }
}

/* Bring owner[][] up to date with this turn's heads. */
static void update(const struct MoveData *data)
{
    for (int k = 0; k < data->cycleCount; k++) {
        if (wasAlive[k] && !data->cycles[k].alive) { /* exploded: its trail is gone */
            for (int y = 0; y < height; y++)
                for (int x = 0; x < width; x++)
                    if (owner[y][x] == k + 1)
                        owner[y][x] = FREE;
        }
    }
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        wasAlive[k] = c->alive;
        if (c->alive)
            owner[c->y][c->x] = (signed char)(k + 1);
    }
}

/* Choose the move of one of our cycles and claim the cell it goes to. */
static void steer(const struct MoveData *data, struct CycleMove *m, int careful)
{
    int k = indexOf(m->name);
    int best = -1, bestRoom = 0;
    long score, bestScore = -1;
    measureOthers(data, k);
    for (int d = 0; d < 4; d++) {
        int nx = m->x + DX[d], ny = m->y + DY[d], territory;
        int space = room(nx, ny, &territory);
        if (space == 0)
            continue;
        score = 64L * territory + 16L * (space < ROOM_CAP ? space : ROOM_CAP);
        score += k >= 0 && lastDir[k] == d;
        if (space >= POCKET)
            score += 100000;
        if (!(careful && danger[ny][nx]))
            score += 10000;
        if (score > bestScore) {
            best = d;
            bestScore = score;
            bestRoom = space;
        }
    }
    m->jump = 0;
    if (bestRoom < POCKET && k >= 0 && data->cycles[k].jumpsLeft > 0) {
        int bestJump = -1, jumpRoom = bestRoom, territory;
        for (int d = 0; d < 4; d++) {
            int space = room(m->x + 2 * DX[d], m->y + 2 * DY[d], &territory);
            if (space > jumpRoom) {
                bestJump = d;
                jumpRoom = space;
            }
        }
        if (bestJump >= 0) {
            best = bestJump;
            m->jump = 1;
        }
    }
    if (best < 0) /* no way out: keep going and explode */
        best = k >= 0 ? lastDir[k] : 0;
    m->direction = FLAGS[best];
    if (k >= 0)
        lastDir[k] = best;
    int tx = m->x + DX[best] * (m->jump ? 2 : 1), ty = m->y + DY[best] * (m->jump ? 2 : 1);
    if (inside(tx, ty))
        claimed[ty][tx] = 1;
}

void example_team_move(struct MoveData *data)
{
    struct CycleMove *order[MAX_CYCLES];
    int n = 0;

    update(data);
    memset(claimed, 0, sizeof claimed);
    memset(danger, 0, sizeof danger);
    for (int k = 0; k < data->cycleCount; k++) {
        const struct Cycle *c = &data->cycles[k];
        if (!c->alive || c->team == myTeam)
            continue;
        for (int d = 0; d < 4; d++)
            if (inside(c->x + DX[d], c->y + DY[d]))
                danger[c->y + DY[d]][c->x + DX[d]] = 1;
    }
    /* with more CPU time than the enemy we lose contests for a cell: avoid them */
    int careful = data->cpuTime[myTeam] >= data->cpuTime[1 - myTeam];

    for (struct CycleMove *m = data->myCycles; m != NULL && n < MAX_CYCLES; m = m->next)
        order[n++] = m;
    /* the most constrained first (an insertion sort keeps name order among equals) */
    for (int i = 1; i < n; i++) {
        struct CycleMove *m = order[i];
        int f = freeSteps(m->x, m->y), j = i;
        while (j > 0 && freeSteps(order[j - 1]->x, order[j - 1]->y) > f) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = m;
    }
    for (int i = 0; i < n; i++)
        steer(data, order[i], careful);
    /* relink myCycles in the order we planned: the moves are executed in that order */
    for (int i = 0; i < n; i++)
        order[i]->next = i + 1 < n ? order[i + 1] : NULL;
    data->myCycles = n > 0 ? order[0] : NULL;
}
