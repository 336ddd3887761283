// A test player of the kit: it prints, each round, what Board shows of the game (a
// checksum of the vertices not free and of the bonuses lying about), for the test to
// compare with lightcycle's own states; it uses every bonus at once, so turbos and
// ghosts happen; and it writes to cout and reads cin, which the kit must survive.
#include "Player.hh"

#include <iostream>
#include <string>
#include <vector>

using namespace std;

#define PLAYER_NAME Probe

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  virtual void play() {
    long long occupied = 0, bonuses = 0;
    int count = 0;
    for (int v = 0; v < nb_vertices(); ++v) {
      if (!is_free(v)) occupied = (occupied + (v + 1LL) * (v + 7)) % 1000000007, ++count;
      if (vertex(v).bonus != None) bonuses = (bonuses + (v + 1LL) * (vertex(v).bonus + 3)) % 1000000007;
    }
    cerr << "PROBE " << me() << " " << round() << " " << count << " " << occupied << " "
         << bonuses << "\n";
    cout << "probe writes to cout on round " << round() << endl;
    string word;
    if (cin >> word) cerr << "PROBE cin gave " << word << "\n";
    vector<bool> taken(nb_vertices(), false);
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      int to = -1, most = -1;
      for (int v : neighbours(b.vertex)) {
        if (!is_free(v) || taken[v]) continue;
        int exits = 0;
        for (int w : neighbours(v)) exits += is_free(w) && !taken[w];
        if (exits > most) most = exits, to = v;
      }
      bool use = b.bonus != None;
      if (to < 0) to = neighbours(b.vertex)[0];
      taken[to] = true;
      move(id, to, use);
    }
  }
};

RegisterPlayer(PLAYER_NAME);
