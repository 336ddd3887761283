// Json.hh: the small JSON reader and writer the Game speaks lightcycle's jsonl protocol
// with. Standard C++17 only. You never need it in your player: Board.hh and Action.hh
// are your interface; this is the game's own plumbing.
#ifndef LIGHTCYCLE_JSON_HH
#define LIGHTCYCLE_JSON_HH

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lc_json {

/** One JSON value. Objects keep their keys in the order they came. */
struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> fields;

  /** The field called key, or a null value when there is none (or this is no object). */
  const Value& operator[](const std::string& key) const {
    static const Value none;
    if (kind == Object)
      for (const auto& f : fields)
        if (f.first == key) return f.second;
    return none;
  }
  /** Item i of an array, or a null value. */
  const Value& at(std::size_t i) const {
    static const Value none;
    return (kind == Array && i < items.size()) ? items[i] : none;
  }
  std::size_t size() const { return kind == Array ? items.size() : 0; }
  bool is_null() const { return kind == Null; }
  int as_int(int fallback = 0) const { return kind == Number ? int(number) : fallback; }
  double as_double(double fallback = 0) const { return kind == Number ? number : fallback; }
  bool as_bool(bool fallback = false) const { return kind == Bool ? boolean : fallback; }
  std::string as_string(const std::string& fallback = "") const {
    return kind == String ? text : fallback;
  }
};

/** Reads one JSON text; throws std::runtime_error on anything that is not JSON. */
class Reader {
 public:
  static Value parse(const std::string& s) {
    Reader r(s);
    Value v = r.value();
    r.blanks();
    if (r.pos_ != s.size()) r.fail("text after the value");
    return v;
  }

 private:
  explicit Reader(const std::string& s) : s_(s) {}
  const std::string& s_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("bad JSON (") + what + ") at byte " +
                             std::to_string(pos_));
  }
  void blanks() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' ||
                                s_[pos_] == '\n'))
      ++pos_;
  }
  bool take(const char* word) {
    std::size_t n = std::string(word).size();
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  Value value() {
    blanks();
    if (pos_ >= s_.size()) fail("end of text");
    Value v;
    char c = s_[pos_];
    if (c == '{') {
      v.kind = Value::Object;
      ++pos_;
      blanks();
      if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return v; }
      for (;;) {
        blanks();
        if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a key");
        std::string key = string();
        blanks();
        if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':'");
        ++pos_;
        v.fields.emplace_back(key, value());
        blanks();
        if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
        if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return v; }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Value::Array;
      ++pos_;
      blanks();
      if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return v; }
      for (;;) {
        v.items.push_back(value());
        blanks();
        if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
        if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return v; }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') { v.kind = Value::String; v.text = string(); return v; }
    if (take("true")) { v.kind = Value::Bool; v.boolean = true; return v; }
    if (take("false")) { v.kind = Value::Bool; return v; }
    if (take("null")) return v;
    const char* start = s_.c_str() + pos_;
    char* end = nullptr;
    v.number = std::strtod(start, &end);
    if (end == start) fail("unexpected character");
    pos_ += std::size_t(end - start);
    v.kind = Value::Number;
    return v;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("short \\u escape");
    unsigned cp = unsigned(std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16));
    pos_ += 4;
    return cp;
  }
  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') { out += c; continue; }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.compare(pos_, 2, "\\u") == 0) {
            pos_ += 2;
            unsigned lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
    fail("unterminated string");
  }
};

/** A JSON string literal of s (quotes and escapes added). */
inline std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

}  // namespace lc_json

#endif
