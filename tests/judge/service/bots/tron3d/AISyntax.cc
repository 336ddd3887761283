// Does not compile: the build stops with g++'s line.
#include "Player.hh"

#define PLAYER_NAME Syntax

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  virtual void play() {
    int x = ;
  }
};

RegisterPlayer(PLAYER_NAME);
