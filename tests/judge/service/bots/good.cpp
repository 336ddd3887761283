// C++ build of good.c
/* A good tron2010 bot: moves to the free neighbour with the most room (flood fill). */
#include <cstdio>
#include <cstdlib>
#include <cstring>

static const int DX[4] = {0, 1, 0, -1};
static const int DY[4] = {-1, 0, 1, 0};
static char map[64 * 64];
static int width, height;

static int is_free(int x, int y)
{
    return x >= 0 && x < width && y >= 0 && y < height && map[y * width + x] == ' ';
}

static int room(int sx, int sy)
{
    static int stack[64 * 64];
    static char seen[64 * 64];
    int n = 0, count = 0;
    memset(seen, 0, sizeof seen);
    stack[n++] = sy * width + sx;
    seen[sy * width + sx] = 1;
    while (n > 0) {
        int c = stack[--n], x = c % width, y = c / width;
        count++;
        for (int h = 0; h < 4; h++) {
            int nx = x + DX[h], ny = y + DY[h];
            if (is_free(nx, ny) && !seen[ny * width + nx]) {
                seen[ny * width + nx] = 1;
                stack[n++] = ny * width + nx;
            }
        }
    }
    return count;
}

int main(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (sscanf(line, "%d %d", &width, &height) != 2 || width > 64 || height > 64)
            continue;
        memset(map, '#', sizeof map);
        for (int y = 0; y < height && fgets(line, sizeof line, stdin) != NULL; y++) {
            size_t n = strcspn(line, "\r\n");
            memcpy(map + y * width, line, n < (size_t)width ? n : (size_t)width);
        }
        char *me = (char *)memchr(map, '1', (size_t)width * height);
        int mx = me ? (int)(me - map) % width : 0, my = me ? (int)(me - map) / width : 0;
        int best = 0, best_score = -1000000;
        for (int h = 0; h < 4; h++) {
            int x = mx + DX[h], y = my + DY[h];
            if (!is_free(x, y))
                continue;
            int score = room(x, y) * 8;
            for (int e = 0; e < 4; e++) { /* a cell the opponent may take too: a head-on crash */
                int ox = x + DX[e], oy = y + DY[e];
                if (ox >= 0 && ox < width && oy >= 0 && oy < height && map[oy * width + ox] == '2')
                    score -= 1000;
            }
            for (int e = 0; e < 4; e++)
                score += !is_free(x + DX[e], y + DY[e]); /* hug walls: waste no room */
            if (score > best_score) {
                best = h;
                best_score = score;
            }
        }
        printf("%d\n", best + 1);
        fflush(stdout);
    }
    return 0;
}
