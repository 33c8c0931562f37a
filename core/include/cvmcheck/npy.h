// A strict .npy reader and writer for the two dtypes of the contract.
// Reads format 1.0 and 2.0, little-endian int8 ('|i1') and int32 ('<i4'), C order. Anything
// else, and any malformed byte, is an NpyFormatError naming the problem; never a crash. The
// shape limits of the contract are checked from the header before any data is read or
// allocated; breaking them is a plain LogicError (a bad input, not a damaged file).
#pragma once

#include <string>

#include "cvmcheck/errors.h"
#include "cvmcheck/tensor.h"

namespace cvm {

// The bytes are not a well-formed .npy file of a supported dtype and layout (bad magic or
// version, malformed or truncated header, other dtype, Fortran order, data size not matching
// the shape). A LogicError, so a caller that only asks "bad input?" still gets yes; a case
// reader tells it apart: a damaged case file is the harness's input, not the backend's.
class NpyFormatError : public LogicError {
 public:
  using LogicError::LogicError;
};

// Parses .npy bytes into a tensor labelled with `precision` (the precision is not checked here).
Tensor parse_npy(const std::string& bytes, int precision);
Tensor read_npy(const std::string& path, int precision);

// Format 1.0 bytes: '|i1' for int8 tensors, '<i4' for int32, C order.
std::string to_npy(const Tensor& tensor);
// RuntimeError if the file cannot be written.
void write_npy(const std::string& path, const Tensor& tensor);

}  // namespace cvm
