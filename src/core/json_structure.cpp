// The structure checks (json_structure.hpp): one frame per open object or array, keys checked
// by a scan while an object is small and by a hash set once it is not, the path built only for
// an error message. Driven by nlohmann's SAX interface, alone or beside its DOM builder.
#include "src/core/json_structure.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "src/core/error.hpp"

namespace gemmtune {
namespace {

using Json = nlohmann::json;

/// Depth and duplicate keys, fed the SAX events.
class StructureState {
 public:
  StructureState(int max_depth, std::string const& source, std::string const& depth_note,
                 std::size_t max_keys = 0)
      : max_depth_(max_depth), max_keys_(max_keys), source_(source), depth_note_(depth_note) {}

  void value() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }
  void open(bool is_array) {
    if (static_cast<int>(frames_.size()) >= max_depth_) {
      throw Error(source_ + ": " + path() + ": nested deeper than " + std::to_string(max_depth_) +
                  " levels" + depth_note_);
    }
    frames_.push_back(Frame{is_array, 0, 0, {}, {}, {}});
  }
  void close() {
    frames_.pop_back();
    value();
  }
  void key(std::string const& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (max_keys_ > 0 && ++f.count > max_keys_) {
      throw Error(source_ + ": " + path() + ": more than " + std::to_string(max_keys_) +
                  " keys in one object");
    }
    // Small objects (every object of a table) are checked by a scan; past kScanned keys the
    // keys move into a hash set, so a hostile object of 200 000 keys stays linear.
    bool duplicate = false;
    if (f.hashed.empty()) {
      duplicate = std::find(f.scanned.begin(), f.scanned.end(), k) != f.scanned.end();
      if (!duplicate) f.scanned.push_back(k);
      if (f.scanned.size() > kScanned) {
        f.hashed.insert(f.scanned.begin(), f.scanned.end());
        f.scanned.clear();
      }
    } else {
      duplicate = !f.hashed.insert(k).second;
    }
    if (duplicate) throw Error(source_ + ": " + path() + ": duplicate key");
  }

 private:
  static constexpr std::size_t kScanned = 32;
  struct Frame {
    bool is_array = false;
    std::size_t index = 0;                   // arrays: the element being read
    std::size_t count = 0;                   // objects: keys so far
    std::string key;                         // objects: the member being read
    std::vector<std::string> scanned;        // objects: keys seen so far, while few
    std::unordered_set<std::string> hashed;  // objects: keys seen so far, once many
  };
  std::string path() const {
    std::string p;
    for (Frame const& f : frames_) {
      p = f.is_array ? p + "[" + std::to_string(f.index) + "]"
                     : (p.empty() ? f.key : p + "." + f.key);
    }
    return p.empty() ? std::string("top level") : p;
  }

  int const max_depth_;
  std::size_t const max_keys_;
  std::string const& source_;
  std::string const& depth_note_;
  std::vector<Frame> frames_;
};

/// The checks alone: builds nothing.
class CheckOnly : public nlohmann::json_sax<Json> {
 public:
  explicit CheckOnly(StructureState& s) : s_(s) {}
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, string_t const&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    s_.key(k);
    return true;
  }
  bool parse_error(std::size_t, std::string const&, nlohmann::detail::exception const&) override {
    return false;  // the plain parse that follows reports it
  }

 private:
  bool value() {
    s_.value();
    return true;
  }
  bool open(bool is_array) {
    s_.open(is_array);
    return true;
  }
  bool close() {
    s_.close();
    return true;
  }
  StructureState& s_;
};

/// The checks beside nlohmann's own DOM builder, in the same pass.
template <class J>
class CheckAndBuild {
 public:
  using number_integer_t = typename J::number_integer_t;
  using number_unsigned_t = typename J::number_unsigned_t;
  using number_float_t = typename J::number_float_t;
  using string_t = typename J::string_t;
  using binary_t = typename J::binary_t;

  CheckAndBuild(StructureState& s, J& out) : s_(s), dom_(out, true) {}
  bool null() { return s_.value(), dom_.null(); }
  bool boolean(bool v) { return s_.value(), dom_.boolean(v); }
  bool number_integer(number_integer_t v) { return s_.value(), dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return s_.value(), dom_.number_unsigned(v); }
  bool number_float(number_float_t v, string_t const& t) {
    return s_.value(), dom_.number_float(v, t);
  }
  bool string(string_t& v) { return s_.value(), dom_.string(v); }
  bool binary(binary_t& v) { return s_.value(), dom_.binary(v); }
  bool start_object(std::size_t n) { return s_.open(false), dom_.start_object(n); }
  bool start_array(std::size_t n) { return s_.open(true), dom_.start_array(n); }
  bool end_object() { return s_.close(), dom_.end_object(); }
  bool end_array() { return s_.close(), dom_.end_array(); }
  bool key(string_t& k) { return s_.key(k), dom_.key(k); }
  template <class Exception>
  bool parse_error(std::size_t at, std::string const& token, Exception const& e) {
    return dom_.parse_error(at, token, e);  // throws e: the caller words it
  }

 private:
  StructureState& s_;
  nlohmann::detail::json_sax_dom_parser<J> dom_;
};

}  // namespace

void check_json_structure(std::string_view text, int max_depth, std::string const& source,
                          std::string const& depth_note) {
  StructureState state(max_depth, source, depth_note);
  CheckOnly check(state);
  (void)Json::sax_parse(text.begin(), text.end(), &check);
}

template <class J>
J parse_checked_json(std::string_view text, int max_depth, std::string const& source,
                     std::string const& depth_note, std::size_t max_keys) {
  StructureState state(max_depth, source, depth_note, max_keys);
  J out;
  CheckAndBuild<J> build(state, out);
  (void)J::sax_parse(text.begin(), text.end(), &build);
  return out;
}

template nlohmann::json parse_checked_json<nlohmann::json>(std::string_view, int,
                                                           std::string const&, std::string const&,
                                                           std::size_t);
template nlohmann::ordered_json parse_checked_json<nlohmann::ordered_json>(
    std::string_view, int, std::string const&, std::string const&, std::size_t);

}  // namespace gemmtune
