// The ablation bench's CSV (bench/ablation_bench.cu, read by bench/plot_ablation.py): one row per
// variant and size. Variant names hold commas ("Kogge-Stone, 1 per thread"), so every text field
// is quoted, and a quote inside one doubled (RFC 4180); numbers are written bare.
#pragma once

#include <cstdio>
#include <string>

namespace ablation
{

// `text` as one CSV field.
inline std::string csv_field(const std::string& text)
{
  std::string quoted = "\"";
  for (const char c : text)
  {
    if (c == '"')
    {
      quoted += '"';
    }
    quoted += c;
  }
  return quoted + '"';
}

// One measurement: a variant scanning 2^log2n elements of a type, its time and the copy's, and
// whether its result equalled the reference.
struct csv_measurement
{
  std::string level; // "block" or "device"
  std::string variant;
  std::string type; // "int8", "int16", "int32", "int64"
  int log2n;
  double ms;
  double copy_ms;
  bool exact;
};

inline void write_csv_header(std::FILE* csv)
{
  std::fprintf(csv, "level,variant,type,log2n,ms,copy_ms,ratio,exact\n");
}

inline void write_csv_row(std::FILE* csv, const csv_measurement& m)
{
  std::fprintf(csv, "%s,%s,%s,%d,%.6f,%.6f,%.4f,%d\n", csv_field(m.level).c_str(), csv_field(m.variant).c_str(),
               csv_field(m.type).c_str(), m.log2n, m.ms, m.copy_ms, m.copy_ms / m.ms, m.exact ? 1 : 0);
}

} // namespace ablation
