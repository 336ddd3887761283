// Board.hh: what your player can see of the game. Read-only: every function is const.
//
// Your player class derives from Player, which derives from Board, so inside play() you
// call these functions directly: nb_rounds(), round(), me(), bike(id), vertex(v)...
//
// lightcycle's words and the course's: lightcycle calls a bike a "cycle", a player a
// "team" or "seat", a bonus an "item" and a round a "turn" (round = turn - 1). The rules
// are lightcycle's ruleset tron3d@1 (docs/rulesets.md in lightcycle): the course's rules,
// with these precisions:
//
//  - Rounds are numbered from 0 to nb_rounds() - 1. Bikes without turbo move on even
//    rounds only; bikes in turbo move every round, and must.
//  - play() is called on every round on which at least one of your bikes moves (on odd
//    rounds only when one of yours is in turbo): lightcycle asks a player only then.
//  - Each round the players' moves are executed in a random order (drawn from the game's
//    seed); your own bikes move in the order you gave their moves (Action.hh). The first
//    bike into a vertex takes it; a later one crashes.
//  - A bike that must move and is given no move, or a move to a vertex that is not a
//    neighbour of its own, explodes at once; a crashed or exploded bike's trail vanishes.
//  - A bike's trail includes the vertex it stands on. What Board shows is the referee's
//    own state at the start of the round, exactly (the kit's tests check it round by
//    round, turbos and ghosts included).
//  - Board's round() hides the math function round() inside your class: write
//    std::round(x) for that one.
//  - Bonuses appear at the end of round bonus_round() - 1, so you see them from round
//    bonus_round() on, on every bonus vertex not holding a trail. A bike that moves onto
//    one picks it up (Points scores score_bonus() at once; Turbo and Ghost are kept, one
//    per bike, a new one replacing the old).
//  - Turbo: used with a move, the bike moves every round for turbo_duration() moves,
//    that one included. Ghost: used with a move, the bike passes through trails and
//    other bikes for ghost_duration() moves, that one included; its trail takes only the
//    free vertices it enters.
//  - Score: move_points() (10) per move made and survived, plus bonus points. A player
//    whose bikes are all gone keeps its score and can still win. Equal scores share a
//    place.
#ifndef LIGHTCYCLE_BOARD_HH
#define LIGHTCYCLE_BOARD_HH

#include <string>
#include <vector>

/** The bonus items. Points is consumed when picked up, so a bike never holds it. */
enum Bonus { None, Turbo, Ghost, Points };

/** One vertex of the board (a vertex of the 3D model). */
struct Vertex {
  int id = 0;                   ///< its number, 0 <= id < nb_vertices()
  std::vector<int> neighbours;  ///< the vertices a bike here can move to, ascending
  bool wall = false;            ///< a wall of the board itself (the built-in boards have none)
  int trail = -1;               ///< the bike whose trail holds it (its head included), or -1
  Bonus bonus = None;           ///< the bonus lying on it
  double x = 0, y = 0, z = 0;   ///< where it is drawn (the rules ignore it)
};

/** One bike, yours or another player's. */
struct Bike {
  int id = 0;              ///< its number, 0 <= id < nb_players() * nb_bikes()
  int player = 0;          ///< the player that commands it
  bool alive = true;       ///< false once it crashed or exploded (its trail is gone then)
  int vertex = 0;          ///< where it is (where it died, once dead)
  Bonus bonus = None;      ///< the bonus it holds (Turbo, Ghost or None)
  int turbo_duration = 0;  ///< turbo moves left (0: not in turbo)
  int ghost_duration = 0;  ///< ghost moves left (0: not a ghost)
  bool moves = false;      ///< whether it moves this round (and so needs a move)
};

namespace lc_detail {
/** The game as the Game program keeps it; Board reads it (you never touch it). */
struct GameData {
  int nb_players = 0, nb_bikes = 2, nb_rounds = 200, bonus_round = 50;
  int turbo_duration = 8, ghost_duration = 3, score_bonus = 50, move_points = 10;
  int round = 0, me = 0, seed = 0;
  std::vector<int> bonus_vertices;
  std::vector<Vertex> vertices;
  std::vector<Bike> bikes;
  std::vector<int> scores;
  std::vector<std::string> names;
  std::vector<std::vector<int>> bikes_of;
};
}  // namespace lc_detail

class Board {
 public:
  // ---- the game's parameters (the same all game) ----

  /** Number of players in the game (2 or 4). */
  int nb_players() const { return d_->nb_players; }
  /** Number of bikes of each player (usually 2). */
  int nb_bikes() const { return d_->nb_bikes; }
  /** Number of rounds of the game (usually 200: 100 moves without turbo). */
  int nb_rounds() const { return d_->nb_rounds; }
  /** The round on which bonuses appear (usually 50). */
  int bonus_round() const { return d_->bonus_round; }
  /** Moves a bike makes in turbo after using a Turbo (usually 8: 4 extra moves). */
  int turbo_duration() const { return d_->turbo_duration; }
  /** Moves a bike makes as a ghost after using a Ghost (usually 3). */
  int ghost_duration() const { return d_->ghost_duration; }
  /** Points of a Points bonus (usually 50). */
  int score_bonus() const { return d_->score_bonus; }
  /** Points per move made (10). */
  int move_points() const { return d_->move_points; }
  /** The vertices where bonuses appear on round bonus_round(), if free then. */
  const std::vector<int>& bonus_vertices() const { return d_->bonus_vertices; }
  /** Number of vertices of the board. */
  int nb_vertices() const { return int(d_->vertices.size()); }
  /** The name of a player (as the game shows it). */
  const std::string& name(int player) const { return d_->names.at(player); }
  /** The game's seed when ./Game started it (--seed), else 0 (the judge keeps it). */
  int seed() const { return d_->seed; }

  // ---- the game now ----

  /** The current round, from 0 to nb_rounds() - 1. */
  int round() const { return d_->round; }
  /** Your player's id, 0 <= me() < nb_players(). */
  int me() const { return d_->me; }
  /** One vertex; id from 0 to nb_vertices() - 1. */
  const Vertex& vertex(int id) const { return d_->vertices.at(id); }
  /** The neighbours of a vertex (same as vertex(id).neighbours). */
  const std::vector<int>& neighbours(int id) const { return d_->vertices.at(id).neighbours; }
  /** Whether a bike may enter the vertex: no wall and no trail on it. */
  bool is_free(int id) const {
    const Vertex& v = d_->vertices.at(id);
    return !v.wall && v.trail < 0;
  }
  /** Number of bikes of the game, every player's: nb_players() * nb_bikes(). */
  int nb_all_bikes() const { return int(d_->bikes.size()); }
  /** One bike; id from 0 to nb_all_bikes() - 1. */
  const Bike& bike(int id) const { return d_->bikes.at(id); }
  /** The ids of a player's bikes (alive or not), ascending. */
  const std::vector<int>& bikes(int player) const { return d_->bikes_of.at(player); }
  /** The score of a player so far. */
  int score(int player) const { return d_->scores.at(player); }

  virtual ~Board() {}

 private:
  const lc_detail::GameData* d_ = nullptr;
  friend class Seat;
};

#endif
