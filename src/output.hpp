// Output files that appear whole or not at all: written under a temporary name in the target
// directory, renamed into place by commit(); removed if never committed.
#pragma once

#include <fstream>
#include <string>

namespace ecgpipe {

// Creates `dir` (and parents) if needed and checks that files can be created in it.
// Throws OutputError with the reason otherwise.
void prepare_output_dir(const std::string& dir);

class AtomicFile {
 public:
  AtomicFile(const std::string& dir, const std::string& name);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& temp_path() const { return temp_; }
  const std::string& final_path() const { return final_; }
  // A text stream on the temporary file (opened on first use).
  std::ofstream& stream();
  // Flushes, closes and renames into place. Throws OutputError on any failure.
  void commit();

 private:
  std::string temp_, final_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace ecgpipe
