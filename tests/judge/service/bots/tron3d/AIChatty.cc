// Writes to cout and reads cin every round, as the course forbade: the kit sends cout
// to the debug stream and gives cin end of file, so it still plays (Dummy-like moves).
#include "Player.hh"

#include <iostream>
#include <string>
#include <vector>

using namespace std;

#define PLAYER_NAME Chatty

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }
  virtual void play() {
    cout << "chatty on cout, round " << round() << endl;
    string word;
    if (cin >> word) cout << "cin gave " << word << endl;
    vector<bool> taken(nb_vertices(), false);
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      int to = neighbours(b.vertex)[0], most = -1;
      for (int v : neighbours(b.vertex)) {
        if (!is_free(v) || taken[v]) continue;
        int exits = 0;
        for (int w : neighbours(v)) exits += is_free(w) && !taken[w];
        if (exits > most) most = exits, to = v;
      }
      taken[to] = true;
      move(id, to);
    }
  }
};

RegisterPlayer(PLAYER_NAME);
