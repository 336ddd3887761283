/*
 * tron.h -- the C interface of lightcycle's team course (ruleset teams@1).
 *
 * Two teams of ten light cycles play on a court walled all round: the north team's
 * cycles are named 'A' to 'J', the south team's 'K' to 'T'. Every turn every live cycle
 * must move one cell north, east, south or west; once per game a cycle may instead jump
 * two cells straight ahead, over whatever lies in between. A cycle that enters a wall,
 * the perimeter or a trail explodes, and its whole trail disappears at once. The moves
 * of a turn are executed one by one: first every cycle of the team that has used less
 * CPU time so far, then the other team's; within a team in the order of its myCycles
 * list. A cycle entering the cell where another cycle's head stands takes the cell if
 * its team has used less CPU time (the other cycle explodes), and explodes otherwise.
 * The last team with cycles wins; after the turn limit the team with more cycles wins.
 *
 * Write three functions in one C file (C11, libc and libm only):
 *
 *     char *getName(void);                  your team's name, a string constant
 *     void init(struct InitData *data);     once per game, before the first turn
 *     void move(struct MoveData *data);     once per turn: set each cycle's move
 *
 * The course's prefixed names work unchanged: a library that defines exactly one set
 * firstname_lastname_getName / firstname_lastname_init / firstname_lastname_move is
 * used as it is (see TRON_FUNCTIONS below to declare them with your prefix).
 *
 * Rules of the host (see docs/cteam.md):
 *   - The structures are allocated before each call and destroyed after it: copy what
 *     you need, never keep a pointer to them or into them. Do not free() them.
 *   - Never call srand(): the host seeds rand() before init (InitData.seed).
 *   - printf() is fine for debugging: your standard output goes to the bot's log, not
 *     to the referee. Do not read standard input.
 *   - A crash (segfault, abort, exit) loses the game for your whole team.
 *
 * Coordinates: x is the column (0 at the west edge), y the row (0 at the north edge);
 * NORTH is towards y = 0. The court is width x height cells, its perimeter included,
 * so the cells a cycle can live on have 1 <= x <= width - 2 and 1 <= y <= height - 2
 * on the course's courts.
 */
#ifndef LIGHTCYCLE_TRON_H
#define LIGHTCYCLE_TRON_H

/* Directions are bit flags: set exactly one in CycleMove.direction. */
#define NORTH 1 /* y - 1 */
#define EAST 2  /* x + 1 */
#define SOUTH 4 /* y + 1 */
#define WEST 8  /* x - 1 */

#define TEAM_COUNT 2                         /* teams in a game */
#define CYCLE_COUNT 10                       /* the most cycles a team has */
#define MAX_CYCLES (TEAM_COUNT * CYCLE_COUNT) /* the most cycles in a game */
#define MAX_PLAYER_NAME_LEN 64               /* bytes of a team name, '\0' not counted */
#define MAX_COLOR_NAME_LEN 15                /* bytes of a colour name, '\0' not counted */
#define MAX_GRID_WIDTH 64                    /* the widest court, perimeter included */
#define MAX_GRID_HEIGHT 48                   /* the tallest court, perimeter included */
#define MAX_WALLS (MAX_GRID_WIDTH * MAX_GRID_HEIGHT)

/* One cell of the court. */
struct Point {
    int x; /* column, 0 .. width - 1 */
    int y; /* row, 0 .. height - 1 */
};

/* One cycle as every team sees it. */
struct Cycle {
    char name;     /* 'A'..'J' (team 0, north), 'K'..'T' (team 1, south) */
    int team;      /* 0 or 1 */
    int x, y;      /* where its head is (its last cell, once dead) */
    int alive;     /* 1 while it plays; 0 once it exploded (its trail is gone) */
    int jumpsLeft; /* jumps it may still make this game */
};

/* One team. */
struct TeamInfo {
    char name[MAX_PLAYER_NAME_LEN + 1];  /* the name the referee shows, '\0'-terminated */
    char color[MAX_COLOR_NAME_LEN + 1];  /* "cyan" (team 0) or "magenta" (team 1) */
    unsigned int rgb;                    /* the same colour as 0xRRGGBB */
};

/* The game, given to init() once before the first turn. */
struct InitData {
    int width;                       /* columns of the court, perimeter included */
    int height;                      /* rows of the court, perimeter included */
    int wallCount;                   /* number of entries in walls */
    struct Point walls[MAX_WALLS];   /* every wall cell, row by row: the perimeter and
                                        the walls in the centre of the court */
    struct TeamInfo teams[TEAM_COUNT];
    int myTeam;                      /* your team: 0 (north) or 1 (south) */
    int cyclesPerTeam;               /* cycles of each team (CYCLE_COUNT in the course) */
    int cycleCount;                  /* entries in cycles: TEAM_COUNT * cyclesPerTeam */
    struct Cycle cycles[MAX_CYCLES]; /* where every cycle starts; team 0's first, each
                                        team's in name order ('A', 'B', ...) */
    int jumps;                       /* jumps each cycle may make per game (1) */
    int turnLimit;                   /* the game ends after this turn (0: no limit) */
    unsigned int seed;               /* the seed rand() was given before init */
};

/* One of your cycles in MoveData.myCycles: set direction (and jump) for each. */
struct CycleMove {
    char name;              /* which cycle: 'A'..'T' */
    int x, y;               /* where its head is now */
    int direction;          /* you set it: NORTH, EAST, SOUTH or WEST (0 on entry) */
    int jump;               /* you set it: 1 to jump two cells that way (0 on entry);
                               with no jump left the cycle explodes */
    struct CycleMove *next; /* the cycle that moves after this one, NULL for the last */
};

/* One turn, given to move(). */
struct MoveData {
    int turn;                        /* the turn being played, from 1 */
    int myTeam;                      /* your team, as in InitData */
    int cycleCount;                  /* entries in cycles, as in InitData */
    struct Cycle cycles[MAX_CYCLES]; /* every cycle now, in the same order as InitData */
    long long cpuTime[TEAM_COUNT];   /* CPU microseconds each team has used so far */
    struct CycleMove *myCycles;      /* your live cycles, in name order on entry. Their
                                        moves are executed in the list's order: you may
                                        reorder the list (relink the nodes, do not free
                                        them). A cycle left out of the list, or given a
                                        direction that is not exactly one flag, makes no
                                        move and explodes. */
};

/*
 * The three functions, declared with your prefix (or with none: TRON_FUNCTIONS()):
 *
 *     #include "tron.h"
 *     TRON_FUNCTIONS(jane_doe_);   declares jane_doe_getName, jane_doe_init, jane_doe_move
 *     char *jane_doe_getName(void) { return "Jane's team"; }
 *     void jane_doe_init(struct InitData *data) { ... }
 *     void jane_doe_move(struct MoveData *data) { ... }
 *
 * Do not make them static: the host finds them by name in your library.
 */
#define TRON_FUNCTIONS(prefix)                                                             \
    char *prefix##getName(void);                                                           \
    void prefix##init(struct InitData *data);                                              \
    void prefix##move(struct MoveData *data)

#endif /* LIGHTCYCLE_TRON_H */
