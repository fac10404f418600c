#pragma once

namespace rsh {
namespace bench {

/// The commit the build was configured at (`git rev-parse --short HEAD` when CMake ran), for the reports'
/// context. It lives in a generated file of its own, so that a new commit recompiles that file alone.
const char* git_hash();

}  // namespace bench
}  // namespace rsh
