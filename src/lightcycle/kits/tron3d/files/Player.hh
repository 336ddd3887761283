// Player.hh: the base class of every player.
//
// To write a player, copy AINull.cc or AIDemo.cc to AIWhatever.cc, set
//
//     #define PLAYER_NAME Whatever
//
// (unique, at most 12 letters), and write play(). Do not change factory() nor the last
// line, RegisterPlayer(PLAYER_NAME);, which adds your player to the Game's list
// (./Game --list). Inside play() you read the game through Board (Board.hh) and command
// your bikes through Action (Action.hh): Player derives from both.
//
// play() is called on every round on which at least one of your bikes moves. A new
// player object is made for every game, so your class's attributes start afresh.
//
// cout and cin: the Game speaks lightcycle's protocol on its own private channels, so
// your code cannot break it. Anything you write to cout goes to cerr (the debug stream:
// ./Game prints it after the game, the judge keeps it in the game's log), and cin reads
// end of file at once. Debug with cerr; the judge counts the time it takes.
#ifndef LIGHTCYCLE_PLAYER_HH
#define LIGHTCYCLE_PLAYER_HH

#include <string>
#include <utility>
#include <vector>

#include "Action.hh"
#include "Board.hh"

class Player : public Board, public Action {
 public:
  /** Your strategy: called every round on which one of your bikes moves. */
  virtual void play() = 0;
  virtual ~Player() {}
};

/** Makes a new player object (each player class has one, called factory). */
typedef Player* (*PlayerFactory)();

/** Every registered player: its name and its factory, in registration order. */
inline std::vector<std::pair<std::string, PlayerFactory>>& registered_players() {
  static std::vector<std::pair<std::string, PlayerFactory>> players;
  return players;
}

/** Adds a player to registered_players() (RegisterPlayer makes one per player file). */
struct Registration {
  Registration(const char* name, PlayerFactory factory) {
    registered_players().emplace_back(name, factory);
  }
};

#define LC_PLAYER_STRING_(x) #x
#define LC_PLAYER_STRING(x) LC_PLAYER_STRING_(x)

/** Registers player class x under its name: the last line of every AI*.cc file. */
#define RegisterPlayer(x) static Registration lc_registration_(LC_PLAYER_STRING(x), x::factory)

#endif
