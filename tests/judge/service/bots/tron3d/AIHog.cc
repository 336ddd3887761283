// Plays, but thinks 0.2 s of CPU a round: over the judge's CPU budget for a game.
#include "Player.hh"

#include <ctime>

#define PLAYER_NAME Hog

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  virtual void play() {
    std::clock_t until = std::clock() + CLOCKS_PER_SEC / 5;
    volatile unsigned spins = 0;
    while (std::clock() < until) spins = spins + 1;
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      int to = neighbours(b.vertex)[0];
      for (int v : neighbours(b.vertex))
        if (is_free(v)) to = v;
      move(id, to);
    }
  }
};

RegisterPlayer(PLAYER_NAME);
