/* A first bot for the 3D course, in C: a program speaking lightcycle's jsonl protocol.
 *
 * The judge writes one JSON object per line on stdin and reads one per line on stdout:
 *   {"type":"start",...}  a game starts: "seat" (you), "board" (a graph: "nodes",
 *                         "edges" [[a,b],...], "walls"), "settings" ("nb_rounds"...)
 *   {"type":"turn",...}   a round: "turn", "cycles" (each with "id", "team", "head" (a
 *                         vertex), "alive", "item", "moving"), "items" [[vertex,kind],...]
 *                         and "entered" [[id,vertex],...] after rounds you were not
 *                         asked: the vertices trails gained then (a turbo moves every round).
 *                         You answer {"moves":{"ID":VERTEX,...}} for your moving cycles,
 *                         or {"moves":{"ID":{"to":VERTEX,"use_item":true}}} to use an item.
 *   {"type":"out"...}, {"type":"end",...}  you are out; the game is over (another may start)
 * Only heads are sent, so the bot keeps its own picture of the board: owner[v] says whose
 * trail holds vertex v, and when a cycle crashes its whole trail vanishes (the tron3d@1
 * rules), so we free its vertices. Scoring: 10 points a move survived, 50 for a points
 * item: survive longest. Without turbo a cycle moves every other round.
 *
 * How it plays: each moving cycle takes the free vertex next to it from which it reaches
 * the most vertices before any other cycle can (its "land": a breadth-first race against
 * every other head) and a little of its room (every vertex it reaches at all), neither
 * counted past the moves the game has left, and no more than its room when it leads into
 * a pocket smaller than that; a vertex an enemy head could also
 * enter this round is worth half (who moves first is drawn each round; the second one in
 * crashes). The nearest item it reaches before every enemy pulls it a little. Between
 * equal vertices it hugs walls and trails. It uses a turbo at once when it has room.
 * It wins about 19 games in 20 against three Dummies, and qualifying takes 4 wins in a
 * row: make it smarter from here (use a ghost to escape a trap, look further ahead).
 *
 * Try it:  gcc -O2 -o bot bot.c && lightcycle match --ruleset tron3d --map cube
 *          --bot cmd:./bot --bot builtin:dummy --bot builtin:dummy --bot builtin:dummy
 *          --protocol jsonl
 * Debug with fprintf(stderr, ...): stdout carries your answers only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 8192     /* the most vertices this bot plays on */
#define MAXDEG 16     /* the most neighbours of one vertex */
#define MAXC 64       /* the most cycles in a game */
#define FAR 1000000   /* "never reached" */
#define WALL (-1)

static int nodes, nbr[MAXV][MAXDEG], degree[MAXV];
static int owner[MAXV];                /* 0 free, WALL, or the cycle's id + 1 */
static int seat, rounds = 200, turn;
static int ncycles, cid[MAXC], team[MAXC], head[MAXC], alive[MAXC], moving[MAXC];
static int turbo[MAXC], wasAlive[MAXC];
static int nitems, itemAt[MAXV];
static int theirs[MAXV], ahead[MAXV], mine[MAXV], enemy[MAXV], goal[MAXV], scratch[MAXV];
static int queue[MAXV];

/* -- reading JSON: just enough for this protocol's messages ------------------------- */

/* The text after "name": in s (NULL when absent). */
static const char *field(const char *s, const char *name)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", name);
    const char *p = strstr(s, pattern);
    if (p == NULL)
        return NULL;
    p += strlen(pattern);
    while (*p == ' ')
        p++;
    return p;
}

static int int_field(const char *s, const char *name, int otherwise)
{
    const char *p = field(s, name);
    return p != NULL && (*p == '-' || (*p >= '0' && *p <= '9')) ? atoi(p) : otherwise;
}

/* Read a list of numbers or of [number, ...] lists at p ("[1,2]" or "[[1,2],[3,4]]"):
 * calls each(first, second) for every element (second is -1 for plain numbers). */
static void each_element(const char *p, void (*each)(int, int))
{
    if (p == NULL || *p != '[')
        return;
    p++;
    while (*p && *p != ']') {
        int first, second = -1;
        if (*p == '[') {
            first = (int)strtol(p + 1, (char **)&p, 10);
            if (*p == ',' && p[1] != '"')
                second = (int)strtol(p + 1, (char **)&p, 10);
            while (*p && *p != ']')
                p++;
            p++;
        } else {
            first = (int)strtol(p, (char **)&p, 10);
        }
        each(first, second);
        while (*p == ',' || *p == ' ')
            p++;
    }
}

static void add_edge(int a, int b)
{
    if (a >= 0 && b >= 0 && a < MAXV && b < MAXV && degree[a] < MAXDEG && degree[b] < MAXDEG) {
        nbr[a][degree[a]++] = b;
        nbr[b][degree[b]++] = a;
    }
}

static void add_wall(int v, int unused)
{
    (void)unused;
    if (v >= 0 && v < MAXV)
        owner[v] = WALL;
}

static void add_entered(int id, int v) /* a cell a trail gained while we were not asked */
{
    if (v >= 0 && v < MAXV && owner[v] == 0)
        owner[v] = id + 1;
}

static void add_item(int v, int unused)
{
    (void)unused;
    if (v >= 0 && v < MAXV)
        itemAt[nitems++] = v;
}

/* Read "cycles":[{...},...]: each cycle's id, team, head, alive, moving, item. */
static void read_cycles(const char *p)
{
    char object[1024];
    ncycles = 0;
    p = field(p, "cycles");
    if (p == NULL)
        return;
    while ((p = strchr(p, '{')) != NULL && ncycles < MAXC) {
        const char *end = strchr(p, '}');
        size_t n = (size_t)(end - p);
        if (end == NULL || n >= sizeof object)
            return;
        memcpy(object, p, n);
        object[n] = '\0';
        int k = ncycles++;
        cid[k] = int_field(object, "id", k);
        team[k] = int_field(object, "team", -1);
        head[k] = int_field(object, "head", 0);
        alive[k] = strncmp(field(object, "alive"), "true", 4) == 0;
        moving[k] = strncmp(field(object, "moving"), "true", 4) == 0;
        turbo[k] = strncmp(field(object, "item"), "\"turbo\"", 7) == 0;
        p = end;
        if (end[1] == ']') /* the end of the list */
            return;
    }
}

/* -- the game ------------------------------------------------------------------------ */

/* Bring our picture up to date: new heads are trail, crashed cycles' trails vanish. */
static void update_trails(void)
{
    for (int k = 0; k < ncycles; k++) {
        int mark = cid[k] + 1;
        if (alive[k]) {
            if (owner[head[k]] == 0)
                owner[head[k]] = mark;
        } else if (wasAlive[k]) {
            wasAlive[k] = 0;
            for (int v = 0; v < nodes; v++)
                if (owner[v] == mark)
                    owner[v] = 0;
        }
    }
}

/* A breadth-first search from the n vertices of queue: dist gets the moves to each free
 * vertex reached strictly before limit says another cycle does (no limit: NULL);
 * returns how many vertices it reached. */
static int distances(int n, int *dist, const int *limit)
{
    for (int v = 0; v < nodes; v++)
        dist[v] = FAR;
    for (int k = 0; k < n; k++)
        dist[queue[k]] = 0;
    for (int k = 0; k < n; k++) { /* n grows as we go: vertices in the order reached */
        int v = queue[k];
        for (int j = 0; j < degree[v]; j++) {
            int d = nbr[v][j];
            if (owner[d] == 0 && dist[d] == FAR && (limit == NULL || dist[v] + 1 < limit[d])) {
                dist[d] = dist[v] + 1;
                queue[n++] = d;
            }
        }
    }
    return n;
}

static int heads_of(int enemies_only, int except)
{
    int n = 0;
    for (int k = 0; k < ncycles; k++)
        if (alive[k] && k != except && (!enemies_only || team[k] != seat))
            queue[n++] = head[k];
    return n;
}

static int free_exits(int v)
{
    int n = 0;
    for (int j = 0; j < degree[v]; j++)
        n += owner[nbr[v][j]] == 0;
    return n;
}

/* Choose a move for cycle k; writes it (as JSON) at out. */
static int choose(int k, char *out)
{
    int movesLeft = (rounds - turn) / 2 + 2, best = -1, bestTurbo = 0;
    double bestScore = -1.0;
    distances(heads_of(1, -1), enemy, NULL); /* enemy[v]: moves from the nearest enemy */
    distances(heads_of(0, k), theirs, NULL); /* theirs[v]: from any other cycle */
    for (int v = 0; v < nodes; v++)
        ahead[v] = theirs[v] - 1; /* we are one move behind */
    queue[0] = head[k];
    distances(1, mine, NULL);
    int target = -1; /* the nearest item we reach before every enemy */
    for (int i = 0; i < nitems; i++) {
        int v = itemAt[i];
        if (mine[v] < enemy[v] && (target < 0 || mine[v] < mine[target]))
            target = v;
    }
    if (target >= 0) {
        queue[0] = target;
        distances(1, goal, NULL);
    }
    for (int j = 0; j < degree[head[k]]; j++) {
        int d = nbr[head[k]][j];
        if (owner[d] != 0) /* a wall, a trail or a head: never go there */
            continue;
        queue[0] = d;
        int land = distances(1, scratch, ahead);
        queue[0] = d;
        int room = distances(1, scratch, NULL); /* every vertex it reaches at all */
        if (land > movesLeft) /* nothing counts past the moves the game has left */
            land = movesLeft;
        if (room > movesLeft)
            room = movesLeft;
        double worth = land + 0.3 * room; /* its land and a little of its room */
        if (room < movesLeft && worth > room) /* a pocket: this cycle's game ends there */
            worth = room;
        double score = enemy[d] == 1 ? worth / 2.0 : worth; /* an enemy may come in first */
        if (target >= 0 && goal[d] < FAR)
            score += 3.0 / (1 + goal[d]);
        score -= free_exits(d) / 100.0; /* then hug walls and trails */
        if (score > bestScore) {
            best = d;
            bestScore = score;
            bestTurbo = turbo[k] && room >= 20;
        }
    }
    if (best < 0) /* boxed in: any move will do */
        best = degree[head[k]] > 0 ? nbr[head[k]][0] : 0;
    owner[best] = cid[k] + 1; /* our other cycle keeps out of it */
    if (bestTurbo)
        return sprintf(out, "\"%d\":{\"to\":%d,\"use_item\":true}", cid[k], best);
    return sprintf(out, "\"%d\":%d", cid[k], best);
}

int main(void)
{
    static char line[1 << 20];
    static char answer[4096];
    while (fgets(line, sizeof line, stdin)) {
        const char *type = field(line, "type");
        if (type == NULL)
            continue;
        if (strncmp(type, "\"start\"", 7) == 0) {
            seat = int_field(line, "seat", 0);
            rounds = int_field(line, "nb_rounds", 200);
            nodes = int_field(line, "nodes", 0);
            if (nodes > MAXV)
                return 1;
            memset(degree, 0, sizeof degree);
            memset(owner, 0, sizeof owner);
            each_element(field(line, "edges"), add_edge);
            each_element(field(line, "walls"), add_wall);
            read_cycles(line);
            for (int k = 0; k < MAXC; k++)
                wasAlive[k] = 1;
            update_trails();
        } else if (strncmp(type, "\"turn\"", 6) == 0) {
            turn = int_field(line, "turn", 1);
            read_cycles(line);
            nitems = 0;
            each_element(field(line, "items"), add_item);
            each_element(field(line, "entered"), add_entered);
            update_trails();
            int n = sprintf(answer, "{\"moves\":{");
            for (int k = 0; k < ncycles; k++)
                if (team[k] == seat && alive[k] && moving[k]) {
                    if (answer[n - 1] != '{')
                        answer[n++] = ',';
                    n += choose(k, answer + n);
                }
            printf("%s}}\n", answer);
            fflush(stdout); /* the judge waits for your answer */
        }
    }
    return 0;
}
