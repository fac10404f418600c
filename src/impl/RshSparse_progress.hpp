#pragma once
// Progress of a long host phase on std::clog (Options::report_progress): its
// share done in percent, at most once a second and only once it has run for
// a second, so short phases stay silent.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

namespace rsh {
namespace impl {

class Progress {
 public:
  Progress(std::string phase, int64_t total, bool enabled)
      : phase_(std::move(phase)), total_(total), enabled_(enabled), start_(Clock::now()), last_(start_) {}

  /// `done` of total_ units finished; cheap unless a report is due (call it every few thousand units).
  void update(int64_t done) {
    if (!enabled_ || total_ <= 0) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    std::clog << "rsh: " << phase_ << " " << (100 * done) / total_ << "% ("
              << std::chrono::duration<double>(now - start_).count() << " s)" << std::endl;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string phase_;
  int64_t total_;
  bool enabled_;
  Clock::time_point start_, last_;
};

}  // namespace impl
}  // namespace rsh
