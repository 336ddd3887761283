// The Dummy of lightcycle's 3D course kit: lightcycle's builtin:dummy
// (lightcycle/bots/tron3d.py), move for move.
//
// `lightcycle kit tron3d DIR` compiles this file into DIR/AIDummy.o (g++ -O2 -c), as the
// course handed out its Dummy as an object file; students get the object, not this file.
//
// Each moving bike steps to a random free neighbour, preferring ones with a way on
// (another free neighbour after the move); with none free it moves to its first
// neighbour and crashes. It never uses bonuses. The coin is Python's random.Random
// seeded with the text "dummy:SEED:PLAYER" (a Mersenne Twister seeded through SHA-512,
// choice() by rejection sampling), so with the game's seed (./Game passes it) it makes
// exactly the moves lightcycle's own Dummy makes in the same game.
#include <cstdint>
#include <string>
#include <vector>

#include "Player.hh"

namespace lc_dummy {

/** SHA-512 of a byte string (FIPS 180-4): Python's random seeds text through it. */
std::vector<std::uint8_t> sha512(const std::string& message) {
  static const std::uint64_t K[80] = {
      0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
      0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
      0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
      0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
      0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
      0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
      0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
      0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
      0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
      0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
      0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
      0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
      0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
      0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
      0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
      0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
      0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
      0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
      0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
      0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};
  std::uint64_t h[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                        0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                        0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
  std::vector<std::uint8_t> data(message.begin(), message.end());
  std::uint64_t bits = std::uint64_t(message.size()) * 8;
  data.push_back(0x80);
  while (data.size() % 128 != 112) data.push_back(0);
  for (int i = 0; i < 8; ++i) data.push_back(0);  // the high 64 bits of the length
  for (int i = 7; i >= 0; --i) data.push_back(std::uint8_t(bits >> (8 * i)));
  auto rotr = [](std::uint64_t x, int n) { return (x >> n) | (x << (64 - n)); };
  for (std::size_t block = 0; block < data.size(); block += 128) {
    std::uint64_t w[80];
    for (int t = 0; t < 16; ++t) {
      w[t] = 0;
      for (int b = 0; b < 8; ++b) w[t] = (w[t] << 8) | data[block + 8 * t + b];
    }
    for (int t = 16; t < 80; ++t) {
      std::uint64_t s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ (w[t - 15] >> 7);
      std::uint64_t s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ (w[t - 2] >> 6);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
                  hh = h[7];
    for (int t = 0; t < 80; ++t) {
      std::uint64_t t1 = hh + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) + ((e & f) ^ (~e & g)) +
                         K[t] + w[t];
      std::uint64_t t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  std::vector<std::uint8_t> digest;
  for (std::uint64_t x : h)
    for (int i = 7; i >= 0; --i) digest.push_back(std::uint8_t(x >> (8 * i)));
  return digest;
}

/** Python's random.Random(text): MT19937, seeded as Python seeds it with a str. */
class PyRandom {
 public:
  explicit PyRandom(const std::string& text) {
    // Python: n = int.from_bytes(text + sha512(text)); key = n's 32-bit words, low first
    std::vector<std::uint8_t> bytes(text.begin(), text.end());
    for (std::uint8_t b : sha512(text)) bytes.push_back(b);
    std::vector<std::uint32_t> key;
    for (std::size_t end = bytes.size(); end > 0;) {
      std::uint32_t word = 0;
      std::size_t start = end >= 4 ? end - 4 : 0;
      for (std::size_t i = start; i < end; ++i) word = (word << 8) | bytes[i];
      key.push_back(word);
      end = start;
    }
    while (key.size() > 1 && key.back() == 0) key.pop_back();
    init_by_array(key);
  }

  /** Python's choice(): an index below n (rejection sampling on the top bits). */
  int below(int n) {
    int k = 0;
    while ((n >> k) != 0) ++k;  // n.bit_length()
    std::uint32_t r;
    do r = next() >> (32 - k);
    while (r >= std::uint32_t(n));
    return int(r);
  }

 private:
  static const int N = 624, M = 397;
  std::uint32_t mt_[N];
  int index_ = N;

  void init_genrand(std::uint32_t s) {
    mt_[0] = s;
    for (int i = 1; i < N; ++i) mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + i;
    index_ = N;
  }
  void init_by_array(const std::vector<std::uint32_t>& key) {
    init_genrand(19650218U);
    int i = 1, j = 0, len = int(key.size());
    for (int k = (N > len ? N : len); k; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] + j;
      ++i, ++j;
      if (i >= N) { mt_[0] = mt_[N - 1]; i = 1; }
      if (j >= len) j = 0;
    }
    for (int k = N - 1; k; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - i;
      ++i;
      if (i >= N) { mt_[0] = mt_[N - 1]; i = 1; }
    }
    mt_[0] = 0x80000000U;
  }
  std::uint32_t next() {
    if (index_ >= N) {
      for (int k = 0; k < N; ++k) {
        std::uint32_t y = (mt_[k] & 0x80000000U) | (mt_[(k + 1) % N] & 0x7fffffffU);
        mt_[k] = mt_[(k + M) % N] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
      }
      index_ = 0;
    }
    std::uint32_t y = mt_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }
};

}  // namespace lc_dummy

#define PLAYER_NAME Dummy

struct PLAYER_NAME : public Player {
  static Player* factory() { return new PLAYER_NAME; }

  lc_dummy::PyRandom* rng = nullptr;

  ~PLAYER_NAME() { delete rng; }

  virtual void play() {
    if (rng == nullptr)
      rng = new lc_dummy::PyRandom("dummy:" + std::to_string(seed()) + ":" + std::to_string(me()));
    std::vector<bool> blocked(nb_vertices());
    for (int v = 0; v < nb_vertices(); ++v) blocked[v] = !is_free(v);
    for (int id : bikes(me())) {
      const Bike& b = bike(id);
      if (!b.alive || !b.moves) continue;
      const std::vector<int>& next = neighbours(b.vertex);
      std::vector<int> free, onward;
      for (int d : next)
        if (!blocked[d]) free.push_back(d);
      for (int d : free)
        for (int e : neighbours(d))
          if (e != d && !blocked[e]) {
            onward.push_back(d);
            break;
          }
      const std::vector<int>& pick = onward.empty() ? free : onward;
      int dest = pick.empty() ? next[0] : pick[rng->below(int(pick.size()))];
      blocked[dest] = true;
      move(id, dest);
    }
  }
};

RegisterPlayer(PLAYER_NAME);
