// Matrix Market coordinate reader/writer over zlib: files through gzread
// (plain and gzip files alike), bytes in memory through inflate where they
// carry gzip's magic. Every rejection names the file and the line.
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

/// Bytes in memory, inflated chunk by chunk where they start with gzip's magic, else passed through.
class MemorySource {
 public:
  MemorySource(const char* data, size_t size) : data_(data), size_(size) {
    gzip_ = size >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
    if (!gzip_) return;
    stream_ = std::make_unique<z_stream>();
    std::memset(stream_.get(), 0, sizeof(z_stream));
    if (inflateInit2(stream_.get(), 15 + 16) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    stream_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    stream_->avail_in = static_cast<uInt>(std::min<size_t>(size, std::numeric_limits<uInt>::max()));
    consumed_ = stream_->avail_in;
  }
  ~MemorySource() {
    if (stream_) inflateEnd(stream_.get());
  }
  MemorySource(const MemorySource&) = delete;
  MemorySource& operator=(const MemorySource&) = delete;

  /// Appends up to `max` bytes to `out`; 0 at the end. Returns -1 on corrupt or truncated gzip data.
  long read(std::string& out, size_t max) {
    if (!gzip_) {
      const size_t n = std::min(max, size_ - pos_);
      out.append(data_ + pos_, n);
      pos_ += n;
      return static_cast<long>(n);
    }
    if (ended_) return 0;
    const size_t old = out.size();
    out.resize(old + max);
    stream_->next_out = reinterpret_cast<Bytef*>(&out[old]);
    stream_->avail_out = static_cast<uInt>(max);
    while (stream_->avail_out == max) {
      if (stream_->avail_in == 0 && consumed_ < size_) {  // inputs over 4 GiB, a uInt at a time
        const size_t n = std::min<size_t>(size_ - consumed_, std::numeric_limits<uInt>::max());
        stream_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data_ + consumed_));
        stream_->avail_in = static_cast<uInt>(n);
        consumed_ += n;
      }
      const int rc = inflate(stream_.get(), Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        ended_ = true;
        break;
      }
      if (rc != Z_OK || (stream_->avail_in == 0 && consumed_ == size_ && stream_->avail_out == max)) {
        out.resize(old);
        return -1;
      }
    }
    const size_t n = max - stream_->avail_out;
    out.resize(old + n);
    if (n == 0 && !ended_) return -1;
    return static_cast<long>(n);
  }

 private:
  const char* data_;
  size_t size_, pos_ = 0, consumed_ = 0;
  bool gzip_ = false, ended_ = false;
  std::unique_ptr<z_stream> stream_;
};

/// Reads whole lines of any length from a file (zlib reads plain and gzip alike) or from memory; tracks the
/// 1-based line number. A NUL byte inside a line is rejected (the parser reads C strings).
class LineReader {
 public:
  explicit LineReader(const std::string& path) : name_(path), file_(gzopen(path.c_str(), "rb")) {
    if (!file_) throw FileFormatError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  LineReader(const std::string& name, const char* data, size_t size)
      : name_(name), memory_(std::make_unique<MemorySource>(data, size)) {}

  bool next(std::string& line) {
    size_t end;
    while ((end = buffer_.find('\n', pos_)) == std::string::npos && fill()) {
    }
    if (pos_ >= buffer_.size()) return false;
    if (end == std::string::npos) end = buffer_.size() - 1;  // the last line, without its newline
    line.assign(buffer_, pos_, end + 1 - pos_);
    pos_ = end + 1;
    ++line_no_;
    if (line.find('\0') != std::string::npos) fail("NUL byte in a line");
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return true;
  }
  [[noreturn]] void fail(const std::string& reason) const { throw FileFormatError(name_, line_no_, reason); }
  long line_no() const { return line_no_; }
  const std::string& name() const { return name_; }

 private:
  static constexpr size_t kChunk = size_t(1) << 16;

  /// Reads the next chunk into the buffer (dropping the lines already returned); false at the end.
  bool fill() {
    buffer_.erase(0, pos_);
    pos_ = 0;
    long n;
    if (file_) {
      const size_t old = buffer_.size();
      buffer_.resize(old + kChunk);
      n = gzread(file_.get(), &buffer_[old], static_cast<unsigned>(kChunk));
      buffer_.resize(old + static_cast<size_t>(std::max(n, 0L)));
      int err = Z_OK;
      gzerror(file_.get(), &err);
      if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) fail("corrupt or truncated compressed data");
    } else {
      n = memory_->read(buffer_, kChunk);
      if (n < 0) fail("corrupt or truncated compressed data");
    }
    return n > 0;
  }

  std::string name_;
  GzFile file_;
  std::unique_ptr<MemorySource> memory_;
  std::string buffer_;
  size_t pos_ = 0;
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

/// The reader over either source.
HostCrs read_matrix_market(LineReader& in) {
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
  // What the declared size will take (the coordinates, then coo_to_crs's peak beside them), checked before
  // anything is allocated: a header alone can ask for more than the machine has.
  const double stored = double(declared) * (mirrored ? 2 : 1);
  check_host_bytes(stored * (sizeof(CooEntry) + sizeof(std::pair<int, double>) + sizeof(int) + sizeof(double)) +
                       double(rows + 1) * 2 * sizeof(int64_t),
                   in.name() + ": " + std::to_string(rows) + " x " + std::to_string(cols) + " with " +
                       std::to_string(declared) + " entries");
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

}  // namespace

HostCrs read_matrix_market_host(const std::string& path) {
  LineReader in(path);
  return read_matrix_market(in);
}

HostCrs read_matrix_market_memory(const char* data, size_t size, const std::string& name) {
  LineReader in(name, data, size);
  return read_matrix_market(in);
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
