// Matrix Market coordinate reader/writer over zlib (gzopen reads plain and
// gzip files alike). Every rejection names the file and the line.
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "RshSparse_Error.hpp"
#include "impl/RshSparse_MatrixMarket.hpp"

namespace rsh {
namespace impl {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

/// Reads whole lines of any length; tracks the 1-based line number.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    if (!file_) throw FileFormatError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  bool next(std::string& line) {
    line.clear();
    char buf[4096];
    while (gzgets(file_.get(), buf, sizeof(buf)) != nullptr) {
      line.append(buf);
      if (!line.empty() && line.back() == '\n') break;
    }
    int err = 0;
    gzerror(file_.get(), &err);
    if (err != Z_OK && err != Z_STREAM_END) fail("corrupt or truncated compressed data");
    if (line.empty()) return false;
    ++line_no_;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return true;
  }
  [[noreturn]] void fail(const std::string& reason) const { throw FileFormatError(path_, line_no_, reason); }
  long line_no() const { return line_no_; }

 private:
  std::string path_;
  GzFile file_;
  long line_no_ = 0;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

/// Parses one integer token starting at *p; advances p. Fails on non-numeric text.
int64_t parse_int(const char*& p, const LineReader& in, const char* what) {
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p == '\0') in.fail(std::string("missing ") + what);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(p, &end, 10);
  if (end == p || (*end != '\0' && !std::isspace(static_cast<unsigned char>(*end))))
    in.fail(std::string("non-integer token for ") + what + ": '" + std::string(p, std::strcspn(p, " \t")) + "'");
  if (errno == ERANGE) in.fail(std::string(what) + " overflows 64-bit integer");
  p = end;
  return v;
}

double parse_real(const char*& p, const LineReader& in) {
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p == '\0') in.fail("missing value");
  char* end = nullptr;
  const double v = std::strtod(p, &end);
  if (end == p || (*end != '\0' && !std::isspace(static_cast<unsigned char>(*end))))
    in.fail("non-numeric value token: '" + std::string(p, std::strcspn(p, " \t")) + "'");
  p = end;
  return v;
}

void expect_line_end(const char* p, const LineReader& in) {
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p != '\0') in.fail(std::string("unexpected trailing token '") + p + "'");
}

struct Header {
  bool pattern = false;
  bool integer = false;
  enum class Symmetry { kGeneral, kSymmetric, kSkewSymmetric } symmetry = Symmetry::kGeneral;
};

Header parse_banner(const std::string& line, const LineReader& in) {
  std::istringstream ss(line);
  std::string tag, object, format, field, symmetry;
  ss >> tag >> object >> format >> field >> symmetry;
  if (tag != "%%MatrixMarket") in.fail("missing %%MatrixMarket banner");
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (object != "matrix") in.fail("unsupported object '" + object + "' (need 'matrix')");
  if (format == "array") in.fail("'array' (dense) format is not supported; 'coordinate' is required");
  if (format != "coordinate") in.fail("unknown format '" + format + "' (need 'coordinate')");
  Header h;
  if (field == "pattern") {
    h.pattern = true;
  } else if (field == "integer") {
    h.integer = true;
  } else if (field != "real" && field != "double") {
    in.fail("unsupported field '" + field + "' (need real, integer or pattern)");
  }
  if (symmetry == "symmetric") {
    h.symmetry = Header::Symmetry::kSymmetric;
  } else if (symmetry == "skew-symmetric") {
    h.symmetry = Header::Symmetry::kSkewSymmetric;
  } else if (symmetry != "general") {
    in.fail("unsupported symmetry '" + symmetry + "' (need general, symmetric or skew-symmetric)");
  }
  return h;
}

}  // namespace

HostCrs read_matrix_market_host(const std::string& path) {
  LineReader in(path);
  std::string line;
  if (!in.next(line)) in.fail("empty file");
  const Header header = parse_banner(line, in);

  do {
    if (!in.next(line)) in.fail("missing size line");
  } while (line.empty() || line[0] == '%' || is_blank(line));
  const char* p = line.c_str();
  const int64_t rows = parse_int(p, in, "row count");
  const int64_t cols = parse_int(p, in, "column count");
  const int64_t declared = parse_int(p, in, "entry count");
  expect_line_end(p, in);
  constexpr int64_t kMaxIndex = std::numeric_limits<int>::max();
  if (rows < 0 || cols < 0 || declared < 0) in.fail("negative size");
  if (rows > kMaxIndex || cols > kMaxIndex)
    in.fail("dimensions " + std::to_string(rows) + " x " + std::to_string(cols) + " overflow the 32-bit index range");
  if (header.symmetry != Header::Symmetry::kGeneral && rows != cols) in.fail("symmetric matrix must be square");
  if (declared > rows * cols) in.fail("entry count exceeds rows x cols");  // both < 2^31: no overflow

  std::vector<CooEntry> coo;
  const bool mirrored = header.symmetry != Header::Symmetry::kGeneral;
  coo.reserve(static_cast<size_t>(std::min<int64_t>(declared, int64_t(1) << 26)) * (mirrored ? 2 : 1));
  int64_t seen = 0;
  while (in.next(line)) {
    if (line.empty() || line[0] == '%' || is_blank(line)) continue;
    if (seen == declared) in.fail("more entries than the " + std::to_string(declared) + " declared");
    p = line.c_str();
    const int64_t i = parse_int(p, in, "row index");
    const int64_t j = parse_int(p, in, "column index");
    double v = 1.0;
    if (!header.pattern) v = header.integer ? static_cast<double>(parse_int(p, in, "value")) : parse_real(p, in);
    expect_line_end(p, in);
    if (i < 1 || i > rows || j < 1 || j > cols)
      in.fail("index (" + std::to_string(i) + ", " + std::to_string(j) + ") outside " + std::to_string(rows) + " x " +
              std::to_string(cols));
    if (header.symmetry == Header::Symmetry::kSkewSymmetric && i == j)
      in.fail("skew-symmetric matrix with a diagonal entry");
    if (mirrored && j > i) in.fail("symmetric storage must hold the lower triangle only");
    coo.push_back({i - 1, j - 1, v});
    if (mirrored && i != j) coo.push_back({j - 1, i - 1, header.symmetry == Header::Symmetry::kSkewSymmetric ? -v : v});
    ++seen;
  }
  if (seen < declared)
    in.fail("truncated: " + std::to_string(seen) + " of " + std::to_string(declared) + " entries present");
  return coo_to_crs(rows, cols, std::move(coo));
}

void write_matrix_market_host(const std::string& path, const HostCrs& A, bool pattern) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  GzFile f(gzopen(path.c_str(), gz ? "wb6" : "wbT"));
  if (!f) throw FileFormatError(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
  std::ostringstream os;
  os.precision(17);
  os << "%%MatrixMarket matrix coordinate " << (pattern ? "pattern" : "real") << " general\n";
  os << A.num_rows << ' ' << A.num_cols << ' ' << A.nnz() << '\n';
  auto flush = [&](bool force) {
    if (!force && os.tellp() < (1 << 20)) return;
    const std::string s = os.str();
    if (!s.empty() && gzwrite(f.get(), s.data(), static_cast<unsigned>(s.size())) != static_cast<int>(s.size()))
      throw FileFormatError(path, 0, "write failed");
    os.str("");
  };
  for (int64_t r = 0; r < A.num_rows; ++r) {
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      os << r + 1 << ' ' << A.entries[k] + 1;
      if (!pattern) os << ' ' << A.values[k];
      os << '\n';
    }
    flush(false);
  }
  flush(true);
}

}  // namespace impl
}  // namespace rsh
