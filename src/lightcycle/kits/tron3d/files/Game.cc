// Game.cc: the Game program. You do not need to read it to write a player.
//
// ./Game Demo Dummy Dummy Dummy [--board cube] [--seed 0] [--output game.json]
//     plays a local game: it runs lightcycle's referee (`lightcycle match`, the same rules
//     the judge plays), with each player as a copy of this program in seat mode, and
//     writes the replay to the output file (open it with `lightcycle replay FILE`).
// ./Game --seat NAME
//     seat mode: player NAME plays over lightcycle's jsonl protocol on stdin/stdout
//     (one JSON object a line). Before any player code runs, the protocol's stdin and
//     stdout move to private file descriptors, cout is pointed at cerr and cin at
//     /dev/null, so a player's cout/cin cannot break the protocol.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Json.hh"
#include "Player.hh"

namespace fs = std::filesystem;
using lc_json::Value;

namespace {

Bonus bonus_of(const Value& v) {
  std::string s = v.as_string();
  if (s == "turbo") return Turbo;
  if (s == "ghost") return Ghost;
  if (s == "points") return Points;
  return None;
}

PlayerFactory find_player(const std::string& name) {
  for (const auto& p : registered_players())
    if (p.first == name) return p.second;
  return nullptr;
}

std::string player_list() {
  std::string out;
  for (const auto& p : registered_players()) out += (out.empty() ? "" : " ") + p.first;
  return out.empty() ? "(none: add an AI*.cc file and make all)" : out;
}

}  // namespace

/** One seat: reads the referee's jsonl messages, keeps the game, asks the player. */
class Seat {
 public:
  Seat(PlayerFactory factory, int seed, int out_fd)
      : factory_(factory), seed_(seed), out_fd_(out_fd) {}

  /** Handles one message; false when the game cannot go on. */
  bool handle(const Value& msg) {
    std::string type = msg["type"].as_string();
    if (type == "start") return start(msg);
    if (type == "turn") return turn(msg);
    if (type == "end") player_.reset();
    return true;  // "out", and messages of later protocol versions
  }

 private:
  PlayerFactory factory_;
  int seed_;
  int out_fd_;
  lc_detail::GameData d_;
  std::vector<std::vector<int>> trail_;  // per bike, the vertices its trail holds
  std::unique_ptr<Player> player_;

  bool start(const Value& m) {
    std::string ruleset = m["ruleset"].as_string();
    const Value& board = m["board"];
    if (ruleset.rfind("tron3d@", 0) != 0 || board["kind"].as_string() != "graph") {
      std::cerr << "Game: this program plays the 3D course's rules (tron3d) on graph boards, "
                << "not " << ruleset << "\n";
      return false;
    }
    d_ = lc_detail::GameData();
    const Value& s = m["settings"];
    d_.nb_bikes = s["cycles_per_team"].as_int(2);
    d_.nb_rounds = s["nb_rounds"].as_int(200);
    d_.bonus_round = s["bonus_round"].as_int(50);
    d_.turbo_duration = s["turbo_duration"].as_int(8);
    d_.ghost_duration = s["ghost_duration"].as_int(3);
    d_.score_bonus = s["score_bonus"].as_int(50);
    d_.move_points = s["move_points"].as_int(10);
    d_.nb_players = m["players"].as_int();
    d_.me = m["seat"].as_int();
    d_.seed = seed_;
    for (int p = 0; p < d_.nb_players; ++p)
      d_.names.push_back(m["names"].at(p).as_string("Player " + std::to_string(p + 1)));
    int n = board["nodes"].as_int();
    d_.vertices.assign(n, Vertex());
    for (int v = 0; v < n; ++v) d_.vertices[v].id = v;
    for (const Value& e : board["edges"].items) {
      int a = e.at(0).as_int(), b = e.at(1).as_int();
      d_.vertices.at(a).neighbours.push_back(b);
      d_.vertices.at(b).neighbours.push_back(a);
    }
    for (Vertex& v : d_.vertices) std::sort(v.neighbours.begin(), v.neighbours.end());
    for (const Value& w : board["walls"].items) d_.vertices.at(w.as_int()).wall = true;
    for (const Value& b : board["bonus"].items) d_.bonus_vertices.push_back(b.as_int());
    const Value& pos = board["positions"];
    for (int v = 0; v < n && v < int(pos.size()); ++v) {
      d_.vertices[v].x = pos.at(v).at(0).as_double();
      d_.vertices[v].y = pos.at(v).at(1).as_double();
      d_.vertices[v].z = pos.at(v).at(2).as_double();
    }
    d_.scores.assign(d_.nb_players, 0);
    d_.bikes_of.assign(d_.nb_players, {});
    const Value& cycles = m["cycles"];
    d_.bikes.assign(cycles.size(), Bike());
    trail_.assign(cycles.size(), {});
    for (std::size_t i = 0; i < cycles.size(); ++i) {
      Bike& b = d_.bikes[i];
      read_bike(b, cycles.at(i));
      if (b.player >= 0 && b.player < d_.nb_players) d_.bikes_of[b.player].push_back(b.id);
      if (b.alive) take(b.id, b.vertex);
    }
    read_items(m["items"]);
    player_.reset(factory_());
    player_->d_ = &d_;
    return true;
  }

  void read_bike(Bike& b, const Value& c) {
    b.id = c["id"].as_int();
    b.player = c["team"].as_int();
    b.vertex = c["head"].as_int();
    b.alive = c["alive"].as_bool(true);
    b.bonus = bonus_of(c["item"]);
    b.turbo_duration = c["turbo"].as_int();
    b.ghost_duration = c["ghost"].as_int();
    b.moves = c["moving"].as_bool();
  }

  void read_items(const Value& items) {
    for (Vertex& v : d_.vertices) v.bonus = None;
    for (const Value& it : items.items) d_.vertices.at(it.at(0).as_int()).bonus = bonus_of(it.at(1));
  }

  void take(int bike, int v) {
    d_.vertices.at(v).trail = bike;
    trail_[bike].push_back(v);
  }

  void vanish(int bike) {
    for (int v : trail_[bike])
      if (d_.vertices[v].trail == bike) d_.vertices[v].trail = -1;
    trail_[bike].clear();
  }

  bool owns(int bike, int v) const { return d_.vertices.at(v).trail == bike; }

  // The trails after a turn. A dead bike's trail vanishes. After rounds this seat was
  // not asked, the message lists every vertex a trail gained since ("entered"): exact.
  // Otherwise one round was played and the heads tell: a bike that moved as no ghost
  // adds its new vertex; a ghost's vertex is its own only if nobody else's (lightcycle's
  // remote decoder reads the messages the same way).
  void update_trails(const std::vector<Bike>& now, const Value& entered) {
    for (std::size_t i = 0; i < now.size(); ++i)
      if (!now[i].alive && d_.bikes[i].alive) vanish(int(i));
    if (!entered.is_null()) {
      for (const Value& e : entered.items) take(e.at(0).as_int(), e.at(1).as_int());
      return;
    }
    std::map<int, std::vector<int>> claims, sat;
    for (std::size_t i = 0; i < now.size(); ++i) {
      const Bike &old = d_.bikes[i], &b = now[i];
      if (!b.alive) continue;
      if (!owns(int(i), old.vertex)) sat[old.vertex].push_back(int(i));
      bool ghost = old.ghost_duration > 0 || b.ghost_duration > 0 ||
                   (d_.ghost_duration == 1 && old.bonus == Ghost && b.bonus != Ghost);
      if (b.vertex != old.vertex && !ghost)
        take(int(i), b.vertex);
      else if (!owns(int(i), b.vertex))
        claims[b.vertex].push_back(int(i));
    }
    for (auto* group : {&sat, &claims})
      for (const auto& cell : *group) {
        const Vertex& v = d_.vertices.at(cell.first);
        if (v.wall || v.trail >= 0) continue;
        auto s = sat.find(cell.first);
        take(s != sat.end() ? s->second.front() : cell.second.front(), cell.first);
      }
  }

  bool turn(const Value& m) {
    if (!player_) return true;
    const Value& cycles = m["cycles"];
    std::vector<Bike> now(d_.bikes.size());
    for (std::size_t i = 0; i < now.size(); ++i) read_bike(now[i], cycles.at(i));
    update_trails(now, m["entered"]);
    d_.bikes = now;
    read_items(m["items"]);
    for (int p = 0; p < d_.nb_players; ++p) d_.scores[p] = m["scores"].at(p).as_int();
    d_.round = m["turn"].as_int(1) - 1;
    player_->commands_.clear();
    player_->play();
    std::cout.flush();
    std::fflush(stdout);
    return reply();
  }

  bool reply() {
    std::string out = "{\"moves\":{";
    bool first = true;
    for (const auto& c : player_->commands_) {
      const char* why = nullptr;
      if (c.bike < 0 || c.bike >= int(d_.bikes.size()) || d_.bikes[c.bike].player != d_.me)
        why = "is not yours";
      else if (!d_.bikes[c.bike].alive)
        why = "is dead";
      else if (!d_.bikes[c.bike].moves)
        why = "does not move this round";
      else if (c.vertex < 0)
        why = "was given use_bonus but no move";
      if (why != nullptr) {
        std::cerr << "Game: round " << d_.round << ": bike " << c.bike << " " << why
                  << "; its command is dropped\n";
        continue;
      }
      out += first ? "" : ",";
      first = false;
      out += lc_json::quote(std::to_string(c.bike)) + ":{\"to\":" + std::to_string(c.vertex);
      out += c.use_bonus ? ",\"use_item\":true}" : "}";
    }
    out += "}}\n";
    const char* p = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      ssize_t n = write(out_fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      left -= std::size_t(n);
    }
    return true;
  }
};

namespace {

/** Seat mode: the protocol on private descriptors, cout to cerr, cin from /dev/null. */
int seat_main(std::string name, int seed) {
  if (name.empty() && registered_players().size() == 1) name = registered_players()[0].first;
  PlayerFactory factory = find_player(name);
  if (factory == nullptr) {
    if (name.empty())
      std::cerr << "Game: --seat needs a player's name; the players are: " << player_list()
                << "\n";
    else
      std::cerr << "Game: no player '" << name << "'; the players are: " << player_list()
                << "\n";
    return 2;
  }
  int in_fd = dup(0), out_fd = dup(1);
  int null_fd = open("/dev/null", O_RDONLY);
  if (in_fd < 0 || out_fd < 0 || null_fd < 0 || dup2(2, 1) < 0 || dup2(null_fd, 0) < 0) {
    std::perror("Game: cannot set up the seat's descriptors");
    return 1;
  }
  close(null_fd);
  fcntl(in_fd, F_SETFD, FD_CLOEXEC);
  fcntl(out_fd, F_SETFD, FD_CLOEXEC);
  FILE* in = fdopen(in_fd, "r");
  Seat seat(factory, seed, out_fd);
  char* line = nullptr;
  std::size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, in)) >= 0) {
    std::string text(line, std::size_t(len));
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    Value msg;
    try {
      msg = lc_json::Reader::parse(text);
    } catch (const std::exception& e) {
      std::cerr << "Game: cannot read the referee's message: " << e.what() << "\n";
      return 1;
    }
    if (!seat.handle(msg)) return 1;
  }
  std::free(line);
  return 0;
}

const char* HELP =
    "usage: ./Game [options] PLAYER PLAYER [PLAYER PLAYER]\n"
    "       ./Game --list | --help | --seat [NAME]\n"
    "\n"
    "Plays a local game of the 3D course (lightcycle's ruleset tron3d) between the\n"
    "registered players (2 or 4, the same one several times if you like) and writes its\n"
    "replay, e.g. ./Game Demo Dummy Dummy Dummy --board cube --seed 7\n"
    "\n"
    "options:\n"
    "  -b, --board BOARD   a built-in board (cube, icosphere, icosahedron, donut,\n"
    "                      cylinder) or an .obj file [cube]\n"
    "  -s, --seed N        the game's seed: same seed, same game [0]\n"
    "  -o, --output FILE   the replay to write [game.json]; watch it with\n"
    "                      lightcycle replay FILE (or --html FILE.html for the browser)\n"
    "  -l, --list          list the registered players\n"
    "  --seat [NAME]       seat mode: play NAME over lightcycle's jsonl protocol on\n"
    "                      stdin/stdout (what the referee runs; NAME may be left out\n"
    "                      when one player is registered)\n"
    "  -- ARGS             pass ARGS on to `lightcycle match` (e.g. -- --cpu-time 2)\n"
    "\n"
    "The game is refereed by lightcycle: the command in $LIGHTCYCLE if set, else\n"
    "`lightcycle` on the PATH, else `python3 -m lightcycle`. Each player runs as\n"
    "`./Game --seat NAME`; what players write to cout or cerr is printed after the game.\n";

std::string toml(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

std::vector<std::string> referee_command() {
  std::vector<std::string> argv;
  if (const char* env = std::getenv("LIGHTCYCLE")) {
    std::stringstream words(env);
    std::string w;
    while (words >> w) argv.push_back(w);
  }
  if (argv.empty()) {
    if (on_path("lightcycle"))
      argv = {"lightcycle"};
    else
      argv = {"python3", "-m", "lightcycle"};
  }
  return argv;
}

// Runs argv and waits; its standard output is passed on, less the line naming the
// match's folder (a temporary one, removed after the game).
int run(const std::vector<std::string>& argv) {
  std::cout.flush();
  int pipe_fds[2];
  if (pipe(pipe_fds) < 0) {
    std::perror("Game: pipe");
    return 1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("Game: fork");
    return 1;
  }
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "Game: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);
  FILE* from = fdopen(pipe_fds[0], "r");
  char* line = nullptr;
  std::size_t cap = 0;
  while (getline(&line, &cap, from) >= 0)
    if (std::strncmp(line, "replays, logs and results.json in", 33) != 0) std::cout << line;
  std::free(line);
  std::fclose(from);
  std::cout.flush();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

fs::path own_program(const char* argv0) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::absolute(argv0) : self;
}

int launch(const char* argv0, const std::string& board, int seed, const std::string& output,
           const std::vector<std::string>& players, const std::vector<std::string>& extra) {
  for (const std::string& p : players)
    if (find_player(p) == nullptr) {
      std::cerr << "Game: no player '" << p << "'; the players are: " << player_list() << "\n";
      return 2;
    }
  if (players.size() < 2) {
    std::cerr << "Game: give 2 or 4 players, e.g. ./Game Demo Dummy Dummy Dummy\n";
    return 2;
  }
  fs::path self = own_program(argv0);
  char tmpl[] = "/tmp/lightcycle-game-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    std::perror("Game: cannot make a temporary folder");
    return 1;
  }
  fs::path tmp(tmpl), out = tmp / "match";
  std::vector<std::string> argv = referee_command();
  for (const char* a : {"match", "--ruleset", "tron3d", "--games", "1", "--protocol", "jsonl"})
    argv.push_back(a);
  argv.insert(argv.end(), {"--map", board, "--seed", std::to_string(seed), "--out", out});
  for (std::size_t i = 0; i < players.size(); ++i) {
    fs::path file = tmp / ("seat" + std::to_string(i + 1) + ".toml");
    std::ofstream f(file);
    f << "name = " << toml(players[i]) << "\n"
      << "command = [" << toml(self) << ", \"--seat\", " << toml(players[i])
      << ", \"--seed\", \"" << seed << "\"]\n"
      << "protocol = \"jsonl\"\n"
      << "cwd = " << toml(self.parent_path()) << "\n";
    argv.insert(argv.end(), {"--bot", file.string()});
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  int status = run(argv);
  fs::path replay = out / "game-001.json";
  std::error_code ec;
  if (status == 0 && fs::exists(replay)) {
    fs::path dest(output);
    if (dest.has_parent_path()) fs::create_directories(dest.parent_path(), ec);
    fs::copy_file(replay, dest, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      std::cerr << "Game: cannot write " << output << ": " << ec.message() << "\n";
      status = 1;
    }
  } else if (status == 0) {
    status = 1;
  }
  // each seat's log: "# COMMAND", "# stderr: N bytes", then what it wrote
  for (std::size_t i = 0; i < players.size(); ++i) {
    std::ifstream f(out / "logs" / ("game-001-seat" + std::to_string(i + 1) + ".log"));
    std::string command, count;
    std::getline(f, command);
    std::getline(f, count);
    std::stringstream text;
    text << f.rdbuf();
    if (!text.str().empty())
      std::cerr << "---- seat " << i + 1 << ", " << players[i] << ": cout and cerr ("
                << count.substr(std::min<std::size_t>(2, count.size())) << ") ----\n"
                << text.str() << (text.str().back() == '\n' ? "" : "\n");
  }
  if (status == 0)
    std::cout << "replay: " << output << " (watch it: lightcycle replay " << output << ")\n";
  else
    std::cerr << "Game: the referee stopped with status " << status << "\n";
  fs::remove_all(tmp, ec);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::string board = "cube", output = "game.json", seat;
  bool seat_mode = false;
  int seed = 0;
  std::vector<std::string> players, extra;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "Game: " << a << " needs " << what << " (see --help)\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << HELP;
      return 0;
    } else if (a == "-l" || a == "--list") {
      for (const auto& p : registered_players()) std::cout << p.first << "\n";
      return 0;
    } else if (a == "--seat") {
      seat_mode = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') seat = argv[++i];
    } else if (a == "-b" || a == "--board") {
      board = value("a board");
    } else if (a == "-o" || a == "--output") {
      output = value("a file");
    } else if (a == "-s" || a == "--seed") {
      std::string s = value("a number");
      char* end = nullptr;
      seed = int(std::strtol(s.c_str(), &end, 10));
      if (s.empty() || *end != '\0') {
        std::cerr << "Game: --seed takes a number, not " << s << "\n";
        return 2;
      }
    } else if (a == "--") {
      extra.assign(argv + i + 1, argv + argc);
      break;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "Game: unknown option " << a << " (see --help)\n";
      return 2;
    } else {
      players.push_back(a);
    }
  }
  if (seat_mode) return seat_main(seat, seed);
  return launch(argv[0], board, seed, output, players, extra);
}
