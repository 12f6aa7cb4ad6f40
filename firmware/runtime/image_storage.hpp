// The storage of a firmware image's model, under the fixed names the footprint test looks up in the symbol table:
// the weights and the input in flash (.rodata), the workspace and the output in .bss.
#ifndef CTATTN_FIRMWARE_RUNTIME_IMAGE_STORAGE_HPP
#define CTATTN_FIRMWARE_RUNTIME_IMAGE_STORAGE_HPP

// Rationale: a macro, because the four objects need fixed C names at namespace scope (the footprint test and
// check_footprint.cmake read them with nm), which neither a template nor a function can declare. `Model` is a
// model type from firmware/models/ (parameters, input, workspace, output, example_parameters(), example_input()).
#define CTATTN_FIRMWARE_IMAGE_STORAGE(Model)                                      \
  extern "C" {                                                                    \
  extern const Model::parameters ctattn_weights;                                  \
  extern const Model::input ctattn_input;                                         \
  constinit const Model::parameters ctattn_weights = Model::example_parameters(); \
  constinit const Model::input ctattn_input = Model::example_input();             \
  Model::workspace ctattn_workspace;                                              \
  Model::output ctattn_output;                                                    \
  }

#endif  // CTATTN_FIRMWARE_RUNTIME_IMAGE_STORAGE_HPP
