/*
 * Random light-cycle playouts in plain C: the baseline of bench/step_speed.py.
 *
 * The arena is the one the Python benchmark plays: a 30x30 grid whose border cells are
 * walls (28x28 free cells), cells numbered cell = y * 30 + x, two cycles starting at
 * (x=7, y=15) and (x=22, y=14). Occupancy (walls and trails, heads included) is a byte
 * per cell and every cell has a precomputed neighbour table in the order N, E, S, W
 * (-1 where a move leaves the grid).
 *
 * One playout repeats turns until a cycle dies. Each turn every cycle picks uniformly at
 * random among its free neighbour cells; with none free it takes its first neighbour
 * (and dies). The simultaneous step applies the classic rules: a cycle dies entering a
 * wall, a trail or leaving the grid; two cycles entering the same cell both die; a
 * head-on swap kills both because heads are occupied. The result is a win or a draw.
 *
 * Usage: playout SEED SECONDS [MAX_PLAYOUTS]
 *   Plays until SECONDS have passed (SECONDS <= 0: no time limit) or MAX_PLAYOUTS
 *   playouts are done, whichever comes first, and prints one JSON line:
 *   {"playouts": P, "turns": T, "seconds": S, "wins0": W0, "wins1": W1, "draws": D}
 *
 * Build: gcc -O2 -o playout playout.c
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 30
#define H 30
#define N (W * H)

static int nb[N][4];      /* neighbour per cell and heading N, E, S, W; -1 off the grid */
static uint8_t walls[N];  /* 1 on the border */
static uint8_t occ[N];    /* walls and trails of the current playout */
static uint64_t rng_state;

/* splitmix64 */
static inline uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* uniform in 0..k-1 (k <= 4), by multiply-shift of the high 32 bits */
static inline int below(int k) {
    return (int)(((next_u64() >> 32) * (uint64_t)k) >> 32);
}

static void build_arena(void) {
    static const int dx[4] = {0, 1, 0, -1};
    static const int dy[4] = {-1, 0, 1, 0};
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int c = y * W + x;
            walls[c] = (x == 0 || y == 0 || x == W - 1 || y == H - 1);
            for (int h = 0; h < 4; h++) {
                int nx = x + dx[h], ny = y + dy[h];
                nb[c][h] = (nx >= 0 && nx < W && ny >= 0 && ny < H) ? ny * W + nx : -1;
            }
        }
    }
}

/* A random free neighbour of head, or its first neighbour when none is free. */
static inline int pick(int head) {
    int free_cells[4];
    int k = 0, first = -1;
    for (int h = 0; h < 4; h++) {
        int d = nb[head][h];
        if (d < 0) continue;
        if (first < 0) first = d;
        if (!occ[d]) free_cells[k++] = d;
    }
    return k ? free_cells[below(k)] : first;
}

/* One playout; returns the mask of cycles killed on the last turn (1, 2 or 3 = draw). */
static int playout(long long *turns) {
    int a = 15 * W + 7, b = 14 * W + 22;
    memcpy(occ, walls, N);
    occ[a] = 1;
    occ[b] = 1;
    for (;;) {
        ++*turns;
        int da = pick(a);
        int db = pick(b);
        int killed = 0;
        if (da < 0 || occ[da]) killed |= 1;
        if (db < 0 || occ[db]) killed |= 2;
        if (da == db) killed = 3;
        if (killed) return killed;
        occ[da] = 1;
        occ[db] = 1;
        a = da;
        b = db;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SEED SECONDS [MAX_PLAYOUTS]\n", argv[0]);
        return 2;
    }
    rng_state = strtoull(argv[1], NULL, 10);
    double budget = strtod(argv[2], NULL);
    long long max_playouts = argc > 3 ? strtoll(argv[3], NULL, 10) : -1;
    if (budget <= 0 && max_playouts < 0) {
        fprintf(stderr, "give a time budget or a playout count\n");
        return 2;
    }
    build_arena();
    long long playouts = 0, turns = 0, wins0 = 0, wins1 = 0, draws = 0;
    double start = now(), elapsed = 0.0;
    for (;;) {
        int killed = playout(&turns);
        playouts++;
        if (killed == 3) draws++;
        else if (killed == 2) wins0++;
        else wins1++;
        if (max_playouts >= 0 && playouts >= max_playouts) break;
        /* read the clock every 64 playouts: a playout takes about a microsecond */
        if (budget > 0 && (playouts & 63) == 0 && now() - start >= budget) break;
    }
    elapsed = now() - start;
    printf("{\"playouts\": %lld, \"turns\": %lld, \"seconds\": %.6f, "
           "\"wins0\": %lld, \"wins1\": %lld, \"draws\": %lld}\n",
           playouts, turns, elapsed, wins0, wins1, draws);
    return 0;
}
