/* Starter bot for the aichallenge protocol (turn / go, 2 to 26 players). C99, libc only.
 * Build it and run it against built-in bots, from the repository root:
 *
 *   cc -O2 -o examples/aichallenge/bot examples/aichallenge/bot.c && lightcycle match --map ring --bot cmd:examples/aichallenge/bot --bot builtin:chaser --protocol aichallenge
 *
 * Set-up: "turn 0", "key value" lines (loadtime, turntime, no_rows, no_cols, no_players,
 * bot_id and maybe keys we do not know: ignore those), "map", the rows ('.' floor,
 * '%' wall, 'a', 'b'... the starts of players 0, 1...), "ready". We answer "go".
 * Each turn: "turn N", one "p ID ROW COL" line per live player, "go"; we answer n, e, s
 * or w on a line. "end" means the game is over for us: exit.
 * Only positions are sent, so the bot remembers every cell it has seen taken: the trails.
 * Moving off the grid kills, so off-grid cells count as blocked.
 *
 * stdout carries the answers only: write diagnostics to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* north, east, south, west; row 0 is the top, so north is row - 1 */
static const char MOVES[4] = {'n', 'e', 's', 'w'};
static const int DR[4] = {-1, 0, 1, 0};
static const int DC[4] = {0, 1, 0, -1};

static char *blocked = NULL; /* blocked[row * cols + col]: wall, start or trail */
static int rows = 0, cols = 0;

/* One line from stdin without its '\n' (and '\r'), or NULL at the end of input.
 * The buffer is reused by the next call. */
static char *read_line(void)
{
    static char buf[4096];
    if (fgets(buf, sizeof buf, stdin) == NULL)
        return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf;
}

static int is_free(int r, int c)
{
    return r >= 0 && r < rows && c >= 0 && c < cols && !blocked[r * cols + c];
}

/* The move (0-3) into a free cell with the most free neighbours; north if none. */
static int choose(int my_row, int my_col)
{
    int best = 0, best_score = -1;
    for (int h = 0; h < 4; h++) {
        int r = my_row + DR[h], c = my_col + DC[h], score = 0;
        if (!is_free(r, c))
            continue;
        for (int e = 0; e < 4; e++)
            score += is_free(r + DR[e], c + DC[e]);
        if (score > best_score) {
            best = h;
            best_score = score;
        }
    }
    return best;
}

int main(void)
{
    char *line, key[64];
    int bot_id = -1, turn = 0, my_row = 0, my_col = 0, id, r, c, value;
    while ((line = read_line()) != NULL) {
        if (sscanf(line, "p %d %d %d", &id, &r, &c) == 3) {
            if (r >= 0 && r < rows && c >= 0 && c < cols)
                blocked[r * cols + c] = 1;
            if (id == bot_id) {
                my_row = r;
                my_col = c;
            }
        } else if (strcmp(line, "go") == 0) {
            int move = choose(my_row, my_col);
            printf("%c\n", MOVES[move]);
            fflush(stdout); /* the referee waits for the answer: never leave it buffered */
            fprintf(stderr, "turn %d: at (%d, %d), answered %c\n", turn, my_row, my_col,
                    MOVES[move]);
        } else if (strcmp(line, "map") == 0) {
            blocked = calloc((size_t)rows * cols + 1, 1);
            if (blocked == NULL) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            for (r = 0; r < rows && (line = read_line()) != NULL; r++)
                for (c = 0; c < cols && line[c] != '\0'; c++)
                    blocked[r * cols + c] = line[c] != '.'; /* '%' wall, letter start */
        } else if (strcmp(line, "ready") == 0) {
            fprintf(stderr, "set-up: %dx%d, I am player %d\n", cols, rows, bot_id);
            printf("go\n");
            fflush(stdout);
        } else if (strcmp(line, "end") == 0) {
            fprintf(stderr, "game over after turn %d\n", turn);
            break;
        } else if (sscanf(line, "%63s %d", key, &value) == 2) {
            if (strcmp(key, "turn") == 0)
                turn = value;
            else if (strcmp(key, "no_rows") == 0)
                rows = value;
            else if (strcmp(key, "no_cols") == 0)
                cols = value;
            else if (strcmp(key, "bot_id") == 0)
                bot_id = value;
            /* loadtime, turntime, no_players and unknown keys: not needed here */
        }
    }
    free(blocked);
    return 0;
}
