// A first bot for the free-for-all (the aichallenge protocol: 2 to 26 players), in C++.
//
// The judge first sends the set-up, one "key value" line each (no_rows, no_cols, bot_id:
// your player number, "wrap 1" on a torus...), then "map" and the rows ('.' floor, '%'
// wall, 'a', 'b'... the players' cycles) and "ready": answer "go". Each turn it sends
// "turn N", one line "p ID ROW COL" per player still in the game and "go": answer n, e,
// s or w. "end" says your game is over. Only heads are sent, so the bot remembers every
// cell it has seen taken: a trail stays.
//
// How it plays: of the free cells next to it, it takes the one from which it reaches
// the most cells before any other cycle can (its "land": a breadth-first race against
// every other head), keeping away from the cells another head could enter on the same
// turn (two cycles in one cell both crash). Between cells with as much land it hugs
// walls and trails, so that it fills its room without leaving holes.
//
// Try it:  g++ -O2 -std=c++17 -o bot bot.cpp && lightcycle match --map ffa4 --bot cmd:./bot
//          --bot builtin:random --bot builtin:random --bot builtin:random
//          --protocol aichallenge
// Print to std::cerr to debug: std::cout carries your answers only.
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

const char NAMES[4] = {'n', 'e', 's', 'w'};
const int DX[4] = {0, 1, 0, -1};
const int DY[4] = {-1, 0, 1, 0};
const int FAR = 1000000;  // "never reached"

struct Game {
    int width = 0, height = 0, me = 0;
    bool wrap = false;
    std::vector<std::vector<bool>> taken;  // walls, trails and heads: taken[y][x]
    std::map<int, std::pair<int, int>> heads;  // this turn's heads: player -> (x, y)

    // The cell next to (x, y) towards d, wrapped round a torus, if it is free.
    bool step(int x, int y, int d, int& nx, int& ny) const {
        nx = x + DX[d];
        ny = y + DY[d];
        if (wrap) {
            nx = (nx + width) % width;
            ny = (ny + height) % height;
        }
        return nx >= 0 && ny >= 0 && nx < width && ny < height && !taken[ny][nx];
    }

    // A breadth-first search from starts: the moves to each free cell it reaches strictly
    // before limit (less offset) says another cycle does; FAR where it does not.
    using Grid = std::vector<std::vector<int>>;
    Grid distances(std::vector<std::pair<int, int>> todo, const Grid* limit, int offset,
                   int& reached) const {
        Grid dist(height, std::vector<int>(width, FAR));
        for (auto [x, y] : todo) dist[y][x] = 0;
        for (size_t k = 0; k < todo.size(); k++) {  // todo grows: cells in the order reached
            auto [x, y] = todo[k];
            int nx, ny;
            for (int d = 0; d < 4; d++)
                if (step(x, y, d, nx, ny) && dist[ny][nx] == FAR &&
                    (!limit || dist[y][x] + 1 < (*limit)[ny][nx] - offset)) {
                    dist[ny][nx] = dist[y][x] + 1;
                    todo.push_back({nx, ny});
                }
        }
        reached = (int)todo.size();
        return dist;
    }

    // The answer this turn, 0 to 3 (north when every way is blocked).
    int choose() const {
        std::vector<std::pair<int, int>> others;
        for (auto& [player, head] : heads)
            if (player != me) others.push_back(head);
        int unused, best = 0, best_score = -FAR;
        Grid theirs = distances(others, nullptr, 0, unused);
        auto [x, y] = heads.at(me);
        for (int d = 0; d < 4; d++) {
            int cx, cy, ex, ey, exits = 0, land = 0;
            if (!step(x, y, d, cx, cy)) continue;  // a wall, a trail or a head: never go there
            // c is one move away, and the other heads start moving now
            distances({{cx, cy}}, &theirs, 1, land);
            if (theirs[cy][cx] == 1) land /= 4;  // another head could step here too
            for (int e = 0; e < 4; e++) exits += step(cx, cy, e, ex, ey);
            int score = land * 8 - exits;  // the most land first, then the fewest exits
            if (score > best_score) {
                best = d;
                best_score = score;
            }
        }
        return best;
    }
};

int main() {
    Game game;
    std::string line, word;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        if (!(in >> word)) continue;
        if (word == "p") {  // p ID ROW COL
            int id, row, col;
            in >> id >> row >> col;
            game.heads[id] = {col, row};
            game.taken[row][col] = true;
        } else if (word == "turn") {
            game.heads.clear();  // players not listed are out
        } else if (word == "map") {  // the rows follow
            game.taken.assign(game.height, std::vector<bool>(game.width, false));
            for (int y = 0; y < game.height && std::getline(std::cin, line); y++)
                for (int x = 0; x < game.width && x < (int)line.size(); x++)
                    game.taken[y][x] = line[x] != '.';
        } else if (word == "ready") {
            std::cout << "go" << std::endl;  // endl flushes: the judge waits for it
        } else if (word == "go") {
            std::cout << NAMES[game.choose()] << std::endl;
        } else if (word == "end") {
            break;
        } else {  // a set-up line: key value
            int value = 0;
            in >> value;
            if (word == "no_rows") game.height = value;
            if (word == "no_cols") game.width = value;
            if (word == "bot_id") game.me = value;
            if (word == "wrap") game.wrap = value == 1;
        }
    }
}
