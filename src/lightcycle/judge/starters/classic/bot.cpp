// A first bot for the classic duel (the 2010 AI challenge's tron2010 protocol), in C++.
//
// Every turn the judge writes the whole map: a line "W H", then H rows of W characters:
// '1' is you, '2' your opponent, '#' a wall or a trail, ' ' free floor. You answer one
// digit: 1 north, 2 east, 3 south, 4 west (y grows downwards, so north is y - 1).
// Nothing marks the end of a game: your input just ends.
//
// How it plays: of the free cells next to it, it takes the one from which it reaches
// the most cells before its opponent can (its "land": a breadth-first race), keeping
// away from the cells the opponent could enter on the same turn (both cycles in one
// cell: a draw). Between cells with as much land it hugs walls and trails (the fewest
// free neighbours), so that it fills its room without leaving holes. Make it smarter
// from here: look a few moves ahead.
//
// Try it:  g++ -O2 -std=c++17 -o bot bot.cpp && lightcycle match --map chambers
//          --bot cmd:./bot --bot builtin:random --protocol tron2010
// Print to std::cerr to debug: std::cout carries your moves only.
#include <iostream>
#include <string>
#include <utility>
#include <vector>

using Map = std::vector<std::string>;

const int DX[4] = {0, 1, 0, -1};  // north, east, south, west
const int DY[4] = {-1, 0, 1, 0};

// Read one turn's map; false when the game is over (no more input).
bool read_map(Map& map) {
    int width = 0, height = 0;
    if (!(std::cin >> width >> height)) return false;
    std::string row;
    std::getline(std::cin, row);  // the end of the "W H" line
    map.assign(height, std::string(width, ' '));
    for (int y = 0; y < height && std::getline(std::cin, row); y++)
        for (int x = 0; x < width && x < (int)row.size(); x++)
            if (row[x] != '\r') map[y][x] = row[x];  // keep spaces: they are floor
    return true;
}

bool is_free(const Map& map, int x, int y) {
    return y >= 0 && y < (int)map.size() && x >= 0 && x < (int)map[y].size() &&
           map[y][x] == ' ';
}

using Grid = std::vector<std::vector<int>>;
const int FAR = 1000000;  // "never reached"

// A breadth-first search from (sx, sy): the moves to each free cell it reaches strictly
// before limit says the opponent does (no limit: empty); reached counts them.
Grid distances(const Map& map, int sx, int sy, const Grid& limit, int& reached) {
    Grid dist(map.size(), std::vector<int>(map[0].size(), FAR));
    std::vector<std::pair<int, int>> todo = {{sx, sy}};
    dist[sy][sx] = 0;
    for (size_t k = 0; k < todo.size(); k++) {  // todo grows: cells in the order reached
        auto [x, y] = todo[k];
        for (int d = 0; d < 4; d++) {
            int nx = x + DX[d], ny = y + DY[d];
            if (is_free(map, nx, ny) && dist[ny][nx] == FAR &&
                (limit.empty() || dist[y][x] + 1 < limit[ny][nx] - 1)) {
                dist[ny][nx] = dist[y][x] + 1;
                todo.push_back({nx, ny});
            }
        }
    }
    reached = (int)todo.size();
    return dist;
}

// Where 'who' ('1': me, '2': the opponent) is on the map.
std::pair<int, int> find(const Map& map, char who) {
    for (int y = 0; y < (int)map.size(); y++) {
        auto x = map[y].find(who);
        if (x != std::string::npos) return {(int)x, y};
    }
    return {0, 0};
}

// The heading to take this turn, 0 to 3 (north when every way is blocked).
int choose(const Map& map) {
    auto [x, y] = find(map, '1');
    auto [ox, oy] = find(map, '2');
    int land = 0, best = 0, best_score = -1;
    Grid theirs = distances(map, ox, oy, {}, land);  // how soon the opponent gets to each cell
    for (int d = 0; d < 4; d++) {
        int nx = x + DX[d], ny = y + DY[d];
        if (!is_free(map, nx, ny)) continue;  // a wall, a trail or a head: never go there
        // (nx, ny) is one move away: a cell is mine if I get there before the opponent
        distances(map, nx, ny, theirs, land);
        if (theirs[ny][nx] == 1) land /= 4;  // the opponent could step here too
        int exits = 0;
        for (int e = 0; e < 4; e++) exits += is_free(map, nx + DX[e], ny + DY[e]);
        int score = land * 8 - exits;  // the most land first, then the fewest exits
        if (score > best_score) {
            best = d;
            best_score = score;
        }
    }
    return best;
}

int main() {
    Map map;
    while (read_map(map)) std::cout << choose(map) + 1 << std::endl;  // endl flushes
}
