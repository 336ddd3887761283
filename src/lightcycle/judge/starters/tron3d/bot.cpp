// A first bot for the 3D course, in C++: a program speaking lightcycle's jsonl protocol.
//
// The judge writes one JSON object per line on stdin and reads one per line on stdout:
//   {"type":"start",...}  a game starts: "seat" (you), "board" (a graph: "nodes",
//                         "edges" [[a,b],...], "walls"), "settings" ("nb_rounds"...)
//   {"type":"turn",...}   a round: "turn", "cycles" (each with "id", "team", "head" (a
//                         vertex), "alive", "item", "moving"), "items" [[vertex,kind],...]
//                         and "entered" [[id,vertex],...] after rounds you were not
//                         asked: the vertices trails gained then (a turbo moves every round).
//                         You answer {"moves":{"ID":VERTEX,...}} for your moving cycles,
//                         or {"moves":{"ID":{"to":VERTEX,"use_item":true}}} to use an item.
//   {"type":"out"...}, {"type":"end",...}  you are out; the game is over (another may start)
// Only heads are sent, so the bot keeps its own picture of the board: owner[v] says whose
// trail holds vertex v, and when a cycle crashes its whole trail vanishes (the tron3d@1
// rules), so we free its vertices. Scoring: 10 points a move survived, 50 for a points
// item: survive longest. Without turbo a cycle moves every other round.
//
// How it plays: each moving cycle takes the free vertex next to it from which it reaches
// the most vertices before any other cycle can (its "land": a breadth-first race against
// every other head) and a little of its room (every vertex it reaches at all), neither
// counted past the moves the game has left, and no more than its room when it leads into
// a pocket smaller than that; a vertex an enemy head could also
// enter this round is worth half (who moves first is drawn each round; the second one in
// crashes). The nearest item it reaches before every enemy pulls it a little. Between
// equal vertices it hugs walls and trails. It uses a turbo at once when it has room.
// It wins about 19 games in 20 against three Dummies, and qualifying takes 4 wins in a
// row: make it smarter from here (use a ghost to escape a trap, look further ahead).
//
// Try it:  g++ -O2 -std=c++17 -o bot bot.cpp && lightcycle match --ruleset tron3d
//          --map cube --bot cmd:./bot --bot builtin:dummy --bot builtin:dummy
//          --bot builtin:dummy --protocol jsonl
// Debug with std::cerr << ...: std::cout carries your answers only.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

const int FAR = 1000000;  // "never reached"
const int WALL = -1;

// -- reading JSON: just enough for this protocol's messages ----------------------------

// The position just after "name": in s, from position from (npos when absent).
size_t field(const std::string& s, const std::string& name, size_t from = 0) {
    size_t at = s.find("\"" + name + "\":", from);
    return at == std::string::npos ? at : at + name.size() + 3;
}

int int_field(const std::string& s, const std::string& name, int otherwise) {
    size_t at = field(s, name);
    return at == std::string::npos ? otherwise : std::atoi(s.c_str() + at);
}

bool is(const std::string& s, const std::string& name, const std::string& value) {
    size_t at = field(s, name);
    return at != std::string::npos && s.compare(at, value.size(), value) == 0;
}

// The numbers of a list at position at: [1,2] gives {{1},{2}}, [[1,2],[3,"x"]] gives
// {{1,2},{3}} (strings are skipped).
std::vector<std::vector<int>> elements(const std::string& s, size_t at) {
    std::vector<std::vector<int>> out;
    if (at == std::string::npos || s[at] != '[') return out;
    int depth = 0;
    for (size_t i = at; i < s.size(); i++) {
        char ch = s[i];
        if (ch == '[') {
            if (++depth == 2) out.emplace_back();
        } else if (ch == ']') {
            if (--depth == 0) break;
        } else if (ch == '"') {
            i = s.find('"', i + 1);  // skip a string
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            char* end;
            long number = std::strtol(s.c_str() + i, &end, 10);
            if (depth == 1) out.emplace_back();
            out.back().push_back((int)number);
            i = end - s.c_str() - 1;
        }
    }
    return out;
}

struct Cycle {
    int id, team, head;
    bool alive, moving, turbo;
};

// Every cycle of "cycles":[{...},...].
std::vector<Cycle> read_cycles(const std::string& s) {
    std::vector<Cycle> cycles;
    size_t at = field(s, "cycles");
    while (at != std::string::npos && s[at] != ']') {
        size_t end = s.find('}', at);
        std::string object = s.substr(at, end - at);
        cycles.push_back({int_field(object, "id", 0), int_field(object, "team", -1),
                          int_field(object, "head", 0), is(object, "alive", "true"),
                          is(object, "moving", "true"), is(object, "item", "\"turbo\"")});
        at = end + 1;
        if (s[at] == ',') at++;
    }
    return cycles;
}

// -- the game ------------------------------------------------------------------------

struct Game {
    int seat = 0, rounds = 200, turn = 0;
    std::vector<std::vector<int>> nbr;  // nbr[v]: the vertices one move from v
    std::vector<int> owner;             // 0 free, WALL, or the cycle's id + 1
    std::vector<bool> was_alive;
    std::vector<Cycle> cycles;
    std::vector<int> items;

    void start(const std::string& line) {
        seat = int_field(line, "seat", 0);
        rounds = int_field(line, "nb_rounds", 200);
        int nodes = int_field(line, "nodes", 0);
        nbr.assign(nodes, {});
        owner.assign(nodes, 0);
        for (auto& e : elements(line, field(line, "edges"))) {
            nbr[e[0]].push_back(e[1]);
            nbr[e[1]].push_back(e[0]);
        }
        for (auto& w : elements(line, field(line, "walls"))) owner[w[0]] = WALL;
        cycles = read_cycles(line);
        was_alive.assign(1024, true);
        update_trails();
    }

    // Bring our picture up to date: new heads are trail, crashed cycles' trails vanish.
    void update_trails() {
        for (auto& c : cycles) {
            if (c.alive) {
                if (owner[c.head] == 0) owner[c.head] = c.id + 1;
            } else if (was_alive[c.id]) {
                was_alive[c.id] = false;
                for (auto& o : owner)
                    if (o == c.id + 1) o = 0;
            }
        }
    }

    // A breadth-first search from starts: the moves to each free vertex reached strictly
    // before limit says another cycle does (no limit: empty); reached counts them.
    std::vector<int> distances(std::vector<int> todo, const std::vector<int>& limit,
                               int* reached = nullptr) const {
        std::vector<int> dist(nbr.size(), FAR);
        for (int v : todo) dist[v] = 0;
        for (size_t k = 0; k < todo.size(); k++) {  // todo grows: vertices in the order reached
            int v = todo[k];
            for (int d : nbr[v])
                if (owner[d] == 0 && dist[d] == FAR && (limit.empty() || dist[v] + 1 < limit[d])) {
                    dist[d] = dist[v] + 1;
                    todo.push_back(d);
                }
        }
        if (reached) *reached = (int)todo.size();
        return dist;
    }

    int free_exits(int v) const {
        int n = 0;
        for (int d : nbr[v]) n += owner[d] == 0;
        return n;
    }

    // This turn's move for cycle c, as JSON ("ID":VERTEX).
    std::string choose(const Cycle& c) {
        int moves_left = (rounds - turn) / 2 + 2;
        std::vector<int> enemies, others;
        for (auto& o : cycles) {
            if (o.alive && o.team != seat) enemies.push_back(o.head);
            if (o.alive && o.id != c.id) others.push_back(o.head);
        }
        std::vector<int> enemy = distances(enemies, {});  // moves from the nearest enemy
        std::vector<int> ahead = distances(others, {});   // ... from any other cycle
        for (int& t : ahead) t -= 1;                      // we are one move behind
        std::vector<int> mine = distances({c.head}, {}), goal;
        int target = -1;  // the nearest item we reach before every enemy
        for (int v : items)
            if (mine[v] < enemy[v] && (target < 0 || mine[v] < mine[target])) target = v;
        if (target >= 0) goal = distances({target}, {});
        int best = -1;
        bool use_turbo = false;
        double best_score = -1;
        for (int d : nbr[c.head]) {
            if (owner[d] != 0) continue;  // a wall, a trail or a head: never go there
            int land, room;
            distances({d}, ahead, &land);
            distances({d}, {}, &room);  // every vertex it reaches at all
            // worth: its land and a little of its room, as far as the game goes on
            double worth = std::min(land, moves_left) + 0.3 * std::min(room, moves_left);
            if (room < moves_left && worth > room) worth = room;  // a pocket: its game ends there
            double score = enemy[d] == 1 ? worth / 2.0 : worth;  // an enemy may come in first
            if (target >= 0 && goal[d] < FAR) score += 3.0 / (1 + goal[d]);
            score -= free_exits(d) / 100.0;  // then hug walls and trails
            if (score > best_score) {
                best = d;
                best_score = score;
                use_turbo = c.turbo && room >= 20;
            }
        }
        if (best < 0) best = nbr[c.head].empty() ? 0 : nbr[c.head][0];  // boxed in
        owner[best] = c.id + 1;  // our other cycle keeps out of it
        std::string id = "\"" + std::to_string(c.id) + "\":";
        if (use_turbo) return id + "{\"to\":" + std::to_string(best) + ",\"use_item\":true}";
        return id + std::to_string(best);
    }

    std::string turn_answer(const std::string& line) {
        turn = int_field(line, "turn", 1);
        cycles = read_cycles(line);
        items.clear();
        for (auto& item : elements(line, field(line, "items"))) items.push_back(item[0]);
        // the vertices trails gained in rounds we were not asked (a turbo moves every round)
        for (auto& e : elements(line, field(line, "entered")))
            if (e.size() == 2 && owner[e[1]] == 0) owner[e[1]] = e[0] + 1;
        update_trails();
        std::string moves;
        for (auto& c : cycles)
            if (c.team == seat && c.alive && c.moving)
                moves += (moves.empty() ? "" : ",") + choose(c);
        return "{\"moves\":{" + moves + "}}";
    }
};

int main() {
    Game game;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (is(line, "type", "\"start\"")) game.start(line);
        if (is(line, "type", "\"turn\"")) std::cout << game.turn_answer(line) << std::endl;
    }
}
