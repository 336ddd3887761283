// Crashes on its first round: a null pointer written to.
#include "Player.hh"

#include <iostream>

#define PLAYER_NAME Crash

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  virtual void play() {
    std::cerr << "about to crash on round " << round() << std::endl;
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
};

RegisterPlayer(PLAYER_NAME);
