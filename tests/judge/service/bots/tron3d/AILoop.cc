// Never answers: an endless loop on its first round.
#include "Player.hh"

#define PLAYER_NAME Loop

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  virtual void play() {
    volatile unsigned spins = 0;
    for (;;) spins = spins + 1;
  }
};

RegisterPlayer(PLAYER_NAME);
