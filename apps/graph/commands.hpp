#pragma once

// The subcommands of actorflow-graph that work on SavedModel directories
// (saved_model_commands.cpp), and what they share with the others (main.cpp).
#include <actorflow/actorflow.hpp>
#include <string>
#include <vector>

namespace af::apps {

/// `NAME=V1,V2,...[@D1xD2...]`: values of `target`'s dtype, shaped (a vector by default);
/// `*name` gets NAME. Throws InvalidArgumentError naming the feed.
Tensor parse_feed(const std::string& spec, const Output& target, std::string* name);

/// `info DIR`: each MetaGraphDef's tag set, signatures (as `saved_model_cli show --all`
/// prints them), asset files and the op types actorflow lacks. Returns 3 when some are.
int saved_model_info(const std::string& dir);

/// `run DIR --signature KEY --feed INPUT=VALUES...`: loads the MetaGraphDef tagged `tags`,
/// runs the signature and prints its outputs (`fetches`: output keys, all when empty).
int saved_model_run(const std::string& dir, const std::vector<std::string>& tags,
                    const std::string& signature, const std::vector<std::string>& feeds,
                    const std::vector<std::string>& fetches);

/// `export-saved-model META CHECKPOINT DIR --input KEY=TENSOR --output KEY=TENSOR`: imports a
/// `.meta`, restores the checkpoint and writes a SavedModel tagged `tags` whose
/// "serving_default" signature predicts the outputs from the inputs (tables initialized by
/// the main op, vocabulary files as assets; attributes at their defaults left out with
/// `strip_default_attrs`).
int export_saved_model(const std::string& meta, const std::string& checkpoint,
                       const std::string& dir, const std::vector<std::string>& tags,
                       const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, bool strip_default_attrs);

}  // namespace af::apps
