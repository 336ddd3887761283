/* Starter bot for the jsonl protocol (lightcycle's own: one JSON object per line). C99,
 * libc only. Build it and run it against a built-in bot, from the repository root:
 *
 *   cc -O2 -o examples/jsonl/bot examples/jsonl/bot.c && lightcycle match --map arena-15 --bot cmd:examples/jsonl/bot --bot builtin:chaser --protocol jsonl
 *
 * Every message has a "type": "start" (the board, our "seat", the cycles), "turn" (the
 * heads of all cycles), "out" (we have no cycle left), "end" (the "result"). We answer
 * each turn with {"move":"n"} (or "e", "s", "w"). After "end" another "start" may follow:
 * the same process plays the next game. This bot plays grid boards (walled or wrapping)
 * with one cycle per seat. Only heads are sent each turn, so the bot remembers every cell
 * it has seen taken.
 *
 * The JSON "parser" below only walks the text: it finds a key in an object and skips
 * values, strings included. It assumes valid JSON, one message per line, as the referee
 * sends, and compares keys and strings without decoding escapes (ours have none).
 *
 * stdout carries the answers only: write diagnostics to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MOVES[4] = {'n', 'e', 's', 'w'}; /* y grows downwards: north is y - 1 */
static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};

static char *blocked = NULL; /* blocked[y * width + x]: wall or trail */
static int width = 0, height = 0, wrap = 0, seat = 0;

static char *read_line(void) /* one line without '\n', or NULL at the end of input */
{
    static char *buf = NULL;
    static size_t cap = 0;
    size_t len = 0;
    int ch;
    while ((ch = getchar()) != EOF && ch != '\n') {
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 4096;
            if ((buf = realloc(buf, cap)) == NULL) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
        }
        buf[len++] = (char)ch;
    }
    if (len == 0)
        return ch == EOF ? NULL : "";
    buf[len] = '\0';
    return buf;
}

static const char *ws(const char *p) /* skips blanks */
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *skip_value(const char *p) /* returns the end of the value at p */
{
    int depth = 0;
    p = ws(p);
    do {
        if (*p == '"') { /* a string: skip to its closing quote, past escapes */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else if (*p == '{' || *p == '[') {
            depth++, p++;
        } else if (*p == '}' || *p == ']') {
            depth--, p++;
        } else if (depth == 0) { /* a number, true, false or null */
            while (*p && !strchr(",}] \t\r", *p))
                p++;
        } else {
            p++;
        }
    } while (*p && depth > 0);
    return p;
}

/* The value of member key in the object at obj, or NULL. */
static const char *member(const char *obj, const char *key)
{
    size_t n = strlen(key);
    const char *p = obj ? ws(obj) : "";
    if (*p != '{')
        return NULL;
    for (p = ws(p + 1); *p == '"'; p = ws(p + 1)) {
        const char *k = p + 1, *end = skip_value(p);
        int match = (size_t)(end - k - 1) == n && strncmp(k, key, n) == 0;
        if (*(p = ws(end)) != ':')
            return NULL;
        if (match)
            return ws(p + 1);
        if (*(p = ws(skip_value(p + 1))) != ',')
            return NULL;
    }
    return NULL;
}

/* Calls fn on each element of the array at arr. */
static void each(const char *arr, void (*fn)(const char *))
{
    const char *p = arr ? ws(arr) : "";
    if (*p != '[')
        return;
    for (p = ws(p + 1); *p && *p != ']'; p = ws(p)) {
        fn(p);
        if (*(p = ws(skip_value(p))) == ',')
            p++;
    }
}

/* Reading values found by member(): JSON text such as "\"start\"" or true, a number, [x,y]. */
static int is(const char *v, const char *text) { return v && !strncmp(v, text, strlen(text)); }
static int num(const char *v) { return v ? atoi(v) : 0; }
static int pair(const char *v, int *x, int *y) { return v && sscanf(v, "[ %d , %d", x, y) == 2; }

/* The index of (x, y), wrapped on a torus; -1 when off a walled board. */
static int cell(int x, int y)
{
    if (wrap)
        return ((y % height + height) % height) * width + (x % width + width) % width;
    return x >= 0 && x < width && y >= 0 && y < height ? y * width + x : -1;
}

static int is_free(int x, int y)
{
    int c = cell(x, y);
    return c >= 0 && !blocked[c];
}

static int my_x, my_y, found; /* the head of our live cycle this turn */

static void mark(const char *xy) /* an [x,y] pair: taken for good */
{
    int x, y;
    if (pair(xy, &x, &y) && cell(x, y) >= 0)
        blocked[cell(x, y)] = 1;
}

static void see_cycle(const char *cycle)
{
    int x, y;
    mark(member(cycle, "head"));
    if (!found && pair(member(cycle, "head"), &x, &y) && num(member(cycle, "team")) == seat
        && is(member(cycle, "alive"), "true"))
        my_x = x, my_y = y, found = 1;
}

static int choose(void) /* the move into a free cell with the most free neighbours */
{
    int best = 0, best_score = -1;
    for (int h = 0; h < 4; h++) {
        int x = my_x + DX[h], y = my_y + DY[h], score = 0;
        if (!is_free(x, y))
            continue;
        for (int e = 0; e < 4; e++)
            score += is_free(x + DX[e], y + DY[e]);
        if (score > best_score)
            best = h, best_score = score;
    }
    return best;
}

int main(void)
{
    const char *msg, *type, *board;
    while ((msg = read_line()) != NULL) {
        if ((type = member(msg, "type")) == NULL)
            continue;
        if (is(type, "\"start\"")) { /* a new game: forget everything about the last one */
            board = member(msg, "board");
            if (!is(member(board, "kind"), "\"grid\"")) {
                fprintf(stderr, "this starter bot plays grid boards only\n");
                return 1;
            }
            width = num(member(board, "width"));
            height = num(member(board, "height"));
            seat = num(member(msg, "seat"));
            wrap = is(member(board, "wrap"), "true");
            free(blocked);
            if (width < 1 || height < 1 || !(blocked = calloc((size_t)width * height, 1))) {
                fprintf(stderr, "bad board size %dx%d\n", width, height);
                return 1;
            }
            each(member(board, "walls"), mark);
            found = 0;
            each(member(msg, "cycles"), see_cycle);
            fprintf(stderr, "start: seat %d, %dx%d%s\n", seat, width, height, wrap ? " torus" : "");
        } else if (is(type, "\"turn\"") && blocked != NULL) {
            found = 0;
            each(member(msg, "cycles"), see_cycle);
            int move = choose();
            printf("{\"move\":\"%c\"}\n", MOVES[move]);
            fflush(stdout); /* the referee waits for the answer: never leave it buffered */
            fprintf(stderr, "turn %d: at [%d,%d], answered %c\n", num(member(msg, "turn")), my_x,
                    my_y, MOVES[move]);
        } else if (is(type, "\"end\"")) {
            const char *result = member(msg, "result"); /* "win", "loss" or "draw" */
            if (result != NULL)
                fprintf(stderr, "end: %.*s\n", (int)(skip_value(result) - result), result);
        }
    }
    free(blocked);
    return 0;
}
