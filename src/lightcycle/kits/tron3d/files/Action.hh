// Action.hh: how your player commands its bikes. Your player class derives from Player,
// which derives from Action, so inside play() you call move(...) and use_bonus(...).
//
// Each call to play() starts with no commands. Give every bike of yours that moves this
// round (bike(id).moves) a move to one of the neighbours of its vertex: a bike that must
// move and gets no move, or gets a move to a vertex that is not a neighbour, explodes
// (it overheats, as the course says), and its trail vanishes.
//
// Order matters: your bikes move in the order of your move() calls (the players' turns
// are in a random order each round). Moving a bike twice keeps its place in the order
// and takes the last vertex.
//
// Commands for a bike that is not yours, is dead or does not move this round are
// dropped (with a line on cerr): they cannot cost you anything.
#ifndef LIGHTCYCLE_ACTION_HH
#define LIGHTCYCLE_ACTION_HH

#include <vector>

class Action {
 public:
  /** Move bike to vertex (a neighbour of its vertex) this round. */
  void move(int bike, int vertex) { command(bike).vertex = vertex; }

  /** Move bike to vertex and use the bonus it holds (Turbo or Ghost) with that move. */
  void move(int bike, int vertex, bool use_bonus) {
    Command& c = command(bike);
    c.vertex = vertex;
    c.use_bonus = use_bonus;
  }

  /** Use the bonus bike holds with its move this round (give the move too). Using a
   *  bonus the bike does not hold makes it explode: check bike(id).bonus first. */
  void use_bonus(int bike) { command(bike).use_bonus = true; }

  virtual ~Action() {}

 private:
  struct Command {
    int bike = 0;
    int vertex = -1;  ///< -1: no move given (yet)
    bool use_bonus = false;
  };
  std::vector<Command> commands_;
  Command& command(int bike) {
    for (Command& c : commands_)
      if (c.bike == bike) return c;
    commands_.push_back(Command());
    commands_.back().bike = bike;
    return commands_.back();
  }
  friend class Seat;
};

#endif
