// A good player of the 3D course's kit: tests/judge/service/bots/tron3d_bot.py in C++.
//
// Each of my moving bikes, one after the other, weighs its free neighbours by the land
// it reaches before every other head (a breadth-first race), a little of its room, the
// moves left in the game (a pocket smaller than that is worth only its size), the
// danger of an enemy head next to the vertex, and the nearest bonus it reaches first.
// It uses a Turbo when it has room, and a Ghost to get out when it is trapped.
#include "Player.hh"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <vector>

using namespace std;

#define PLAYER_NAME Grabber

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  static const int FAR = 999;
  vector<bool> blocked;

  vector<int> distances(const vector<int>& starts) {
    vector<int> dist(nb_vertices(), FAR);
    deque<int> todo;
    for (int s : starts) {
      dist[s] = 0;
      todo.push_back(s);
    }
    while (!todo.empty()) {
      int v = todo.front();
      todo.pop_front();
      for (int d : neighbours(v))
        if (dist[d] == FAR && !blocked[d]) {
          dist[d] = dist[v] + 1;
          todo.push_back(d);
        }
    }
    return dist;
  }

  int territory(int start, const vector<int>& others) {
    vector<int> dist(nb_vertices(), FAR);
    dist[start] = 1;
    deque<int> todo{start};
    int n = 1;
    while (!todo.empty()) {
      int v = todo.front();
      todo.pop_front();
      for (int d : neighbours(v))
        if (dist[d] == FAR && !blocked[d] && dist[v] + 1 < others[d]) {
          dist[d] = dist[v] + 1;
          todo.push_back(d);
          ++n;
        }
    }
    return n;
  }

  int reach(int start, int cap) {
    vector<bool> seen(nb_vertices(), false);
    seen[start] = true;
    vector<int> todo{start};
    int n = 1;
    while (!todo.empty() && n < cap) {
      int v = todo.back();
      todo.pop_back();
      for (int d : neighbours(v))
        if (!seen[d] && !blocked[d] && d != start) {
          seen[d] = true;
          todo.push_back(d);
          ++n;
        }
    }
    return n;
  }

  virtual void play() {
    blocked.assign(nb_vertices(), false);
    for (int v = 0; v < nb_vertices(); ++v) blocked[v] = !is_free(v);
    vector<int> enemies;
    for (int id = 0; id < nb_all_bikes(); ++id)
      if (bike(id).alive && bike(id).player != me()) enemies.push_back(bike(id).vertex);
    vector<int> enemy_dist = distances(enemies);
    int needed = (nb_rounds() - round()) / 2 + 10;
    map<int, double> threat;
    for (int h : enemies) {
      vector<int> exits;
      for (int d : neighbours(h))
        if (!blocked[d]) exits.push_back(d);
      for (int d : exits) threat[d] += 0.5 / exits.size();
    }
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      vector<int> free;
      for (int d : neighbours(b.vertex))
        if (!blocked[d]) free.push_back(d);
      map<int, int> room;
      int best_room = 0;
      for (int d : free) {
        blocked[d] = true;
        room[d] = reach(d, needed + 1);
        blocked[d] = false;
        best_room = max(best_room, room[d]);
      }
      if (best_room < 4 && b.bonus == Ghost) {  // trapped: go through
        int dest = neighbours(b.vertex)[0], most = -1;
        for (int d : neighbours(b.vertex)) {
          bool was = blocked[d];
          blocked[d] = false;
          int r = reach(d, 250);
          blocked[d] = was;
          if (r > most) most = r, dest = d;
        }
        move(id, dest, true);
        blocked[dest] = true;
        continue;
      }
      if (free.empty()) {
        move(id, neighbours(b.vertex)[0]);
        continue;
      }
      vector<int> rivals;
      for (int o = 0; o < nb_all_bikes(); ++o)
        if (bike(o).alive && o != id) rivals.push_back(bike(o).vertex);
      vector<int> others = distances(rivals);
      vector<int> mine = distances({b.vertex});
      int target = -1;
      for (int v = 0; v < nb_vertices(); ++v)
        if (vertex(v).bonus != None && mine[v] < enemy_dist[v] &&
            (target < 0 || mine[v] < mine[target]))
          target = v;
      vector<int> goal = target >= 0 ? distances({target}) : vector<int>(nb_vertices(), FAR);
      int dest = free[0];
      double best = -1e9;
      int best_hug = 0;
      for (int d : free) {
        int land = territory(d, others);
        double value = min(land, needed) + 0.3 * min(room[d], needed);
        if (room[d] < needed) value = min(value, double(room[d]));
        value *= 1.0 - min(threat.count(d) ? threat[d] : 0.0, 1.0);
        if (goal[d] < FAR) value += 3.0 / (1 + goal[d]);
        value = std::round(value * 1000) / 1000;
        int hug = 0;
        for (int e : neighbours(d)) hug -= !blocked[e];
        if (value > best || (value == best && hug > best_hug)) {
          best = value, best_hug = hug, dest = d;
        }
      }
      bool turbo = b.bonus == Turbo && room[dest] >= 30 && !threat.count(dest);
      move(id, dest, turbo);
      blocked[dest] = true;
    }
  }
};

RegisterPlayer(PLAYER_NAME);
