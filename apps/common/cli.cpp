// What every app's command line shares, compiled once: CLI::App's parser, the JSON config
// format (nlohmann/json) and the help layout (see cli.hpp).
#include "cli.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace af::apps {
namespace {

/// CLI11's config-file format for actorflow: one JSON object of settings.
class JsonConfig : public CLI::Config {
 public:
  std::string to_config(const CLI::App* app, bool default_also, bool, std::string) const override {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const CLI::Option* opt : app->get_options({})) {
      if (opt->get_lnames().empty() || !opt->get_configurable()) continue;
      const std::string name = opt->get_lnames().front();
      if (name == "help" || name == "config" || name == "dump-config") continue;
      std::string value;
      if (opt->count() > 0) {
        value = CLI::detail::join(opt->results(), ",");
        if (is_flag(opt)) value = "true";
      } else if (default_also) {
        value = is_flag(opt) ? "false" : opt->get_default_str();
      } else {
        continue;
      }
      j[key_of(name)] = as_json(value);
    }
    return j.dump(2) + "\n";
  }

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    nlohmann::json j;
    try {
      input >> j;
    } catch (const nlohmann::json::exception& e) {
      throw CLI::ConversionError("config file: " + std::string(e.what()));
    }
    if (!j.is_object())
      throw CLI::ConversionError("config file: expected a JSON object of settings");
    std::vector<CLI::ConfigItem> items;
    for (auto& [key, value] : j.items()) {
      CLI::ConfigItem item;
      item.name = key;
      for (char& c : item.name)
        if (c == '_') c = '-';
      item.inputs = {value.is_string() ? value.get<std::string>() : value.dump()};
      items.push_back(std::move(item));
    }
    return items;
  }

 private:
  static bool is_flag(const CLI::Option* opt) { return opt->get_expected_min() == 0; }
  static std::string key_of(std::string name) {
    for (char& c : name)
      if (c == '-') c = '_';
    return name;
  }
  // Numbers, booleans and JSON objects (a cluster spec) print as themselves, the rest as strings.
  static nlohmann::ordered_json as_json(const std::string& value) {
    if (value.empty()) return value;
    try {
      auto parsed = nlohmann::ordered_json::parse(value);
      if (parsed.is_number() || parsed.is_boolean() || parsed.is_object() || parsed.is_array())
        return parsed;
    } catch (const nlohmann::json::exception&) {
    }
    return value;
  }
};

/// Help lines as `--flag N   what it does (default 500)`.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_expected_min() == 0) return "";
    std::string type = opt->get_type_name();
    return " " + type.substr(0, type.find(':'));
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    const std::string& def = opt->get_default_str();
    if (opt->get_expected_min() != 0 && !def.empty() && def != "[]" &&
        desc.find("(required)") == std::string::npos)
      desc += " (default " + def + ")";
    return desc;
  }
};

}  // namespace

CLI::Validator integer_in(long long low, long long high) {
  return CLI::Validator(
      [low, high](std::string& input) -> std::string {
        long long v = 0;
        auto [end, ec] = std::from_chars(input.data(), input.data() + input.size(), v);
        bool ok = ec == std::errc() && end == input.data() + input.size() && v >= low && v <= high;
        if (ok) return "";
        std::string want = "an integer";
        if (high != std::numeric_limits<long long>::max())
          want += " in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
        else if (low != std::numeric_limits<long long>::min())
          want += " >= " + std::to_string(low);
        return "expected " + want + ", got '" + input + "'";
      },
      "", "integer_in");
}

CLI::Validator positive_real() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        try {
          std::size_t used = 0;
          double v = std::stod(input, &used);
          if (used == input.size() && v > 0) return "";
        } catch (const std::exception&) {
        }
        return "expected a number > 0, got '" + input + "'";
      },
      "", "positive_real");
}

App::App(std::string program_name, std::string description)
    : cli(std::move(description), program_name), program(std::move(program_name)) {
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->label("Usage", "usage");
  formatter->column_width(30);
  cli.formatter(formatter);
  cli.option_defaults()->always_capture_default();
  cli.config_formatter(std::make_shared<JsonConfig>());
  cli.set_config("--config", "",
                 "read settings from FILE.json (the keys --dump-config prints); flags win")
      ->type_name("FILE.json");
  cli.allow_config_extras(CLI::config_extras_mode::error);
  cli.add_flag("--dump-config", dump_config_, "print the effective settings as JSON and exit");
}

App::~App() = default;

std::optional<int> App::parse(int argc, char** argv) {
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help();
    return 0;
  } catch (const CLI::ConfigError& e) {
    // CLI11 words an unknown key as "INI was not able to parse KEY".
    std::string what = e.what();
    const std::string prefix = "INI was not able to parse ";
    if (what.rfind(prefix, 0) == 0) {
      std::string key = what.substr(prefix.size());
      for (char& c : key)
        if (c == '-') c = '_';
      what = "unknown setting '" + key + "' (see --dump-config)";
    }
    std::cerr << program << ": config file: " << what << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    std::cerr << program << ": " << e.what() << " (see --help)\n";
    return 2;
  }
  if (dump_config_) {
    std::cout << cli.config_to_str(true, false);
    return 0;
  }
  return std::nullopt;
}

int report_failure(const std::string& who, const af::Status& status) {
  const int code = exit_code_for(status.code());
  std::cerr << who << ": " << af::code_name(status.code()) << ": " << status.message();
  if (code == kExitRetryable)
    std::cerr << " (transient: exit code " << code << ", a restart retries)";
  std::cerr << "\n";
  return code;
}

std::string cluster_json(const std::string& value) {
  const auto first = value.find_first_not_of(" \t\n");
  std::string text = value;
  if (first == std::string::npos || value[first] != '{') {
    std::ifstream in(value);
    if (!in) throw std::runtime_error("--cluster: cannot read " + value);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  try {
    return nlohmann::json::parse(text).dump();
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error("--cluster: " + std::string(e.what()));
  }
}

bool apply_tf_config(std::string& cluster, std::string& job, int& task) {
  const char* env = std::getenv("TF_CONFIG");
  if (env == nullptr || *env == '\0') return false;
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(env);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error("TF_CONFIG: " + std::string(e.what()));
  }
  if (!config.is_object())
    throw std::runtime_error("TF_CONFIG: expected a JSON object with \"cluster\" and \"task\"");
  if (cluster.empty() && config.contains("cluster")) {
    if (!config["cluster"].is_object())
      throw std::runtime_error("TF_CONFIG: \"cluster\" must be an object of jobs");
    cluster = config["cluster"].dump();
  }
  if (config.contains("task")) {
    const auto& t = config["task"];
    if (!t.is_object())
      throw std::runtime_error("TF_CONFIG: \"task\" must be {\"type\": JOB, \"index\": N}");
    if (job.empty() && t.contains("type")) {
      if (!t["type"].is_string()) throw std::runtime_error("TF_CONFIG: task.type must be a string");
      job = t["type"].get<std::string>();
    }
    if (task < 0 && t.contains("index")) {
      if (!t["index"].is_number_integer() || t["index"].get<long long>() < 0)
        throw std::runtime_error("TF_CONFIG: task.index must be an integer >= 0");
      task = t["index"].get<int>();
    }
  }
  return true;
}

std::vector<std::string> split_list(const std::string& list, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace af::apps
