// docs/figures/svg.hpp: a minimal SVG writer and the palette of the documentation's figures.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

namespace hg::figures {

// ------------------------------------------------------------------------------------------------------
// A minimal SVG writer: rectangles, text and lines in absolute pixel coordinates.
// ------------------------------------------------------------------------------------------------------
class Svg {
 public:
  void size(double w, double h) { w_ = w, h_ = h; }

  /// extra: more attributes, e.g. stroke-dasharray="4 3" or rx="3".
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "#ffffff",
            double stroke_width = 1.0, const std::string& extra = "") {
    out_ << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"" << fill
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << stroke_width << "\"";
    if (!extra.empty()) out_ << " " << extra;
    out_ << "/>\n";
  }

  /// A closed polygon, e.g. an arrowhead; points as "x1,y1 x2,y2 ...".
  void polygon(const std::string& points, const std::string& fill) {
    out_ << "<polygon points=\"" << points << "\" fill=\"" << fill << "\"/>\n";
  }

  /// anchor: "start", "middle" or "end"; the baseline is at y.
  void text(double x, double y, const std::string& s, double font_size = 12, const std::string& anchor = "start",
            const std::string& style = "", const std::string& fill = "#1f2328") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << font_size << "\" text-anchor=\"" << anchor
         << "\" fill=\"" << fill << "\"";
    if (!style.empty()) out_ << " " << style;
    out_ << ">" << escape(s) << "</text>\n";
  }

  void line(double x1, double y1, double x2, double y2, const std::string& stroke = "#57606a", double width = 1.0,
            const std::string& extra = "") {
    out_ << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2 << "\" stroke=\""
         << stroke << "\" stroke-width=\"" << width << "\"";
    if (!extra.empty()) out_ << " " << extra;
    out_ << "/>\n";
  }

  /// Defines a pattern of diagonal stripes of `color` that a fill can name as "url(#id)" (e.g. over a
  /// colored rectangle, to mark it).
  void hatch_pattern(const std::string& id, const std::string& color) {
    out_ << "<defs><pattern id=\"" << id << "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         << "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" << color
         << "\" stroke-width=\"1.5\"/></pattern></defs>\n";
  }

  /// Text that inherits its font and color from an enclosing group (keeps large figures small).
  void bare_text(double x, double y, const std::string& s) {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\">" << escape(s) << "</text>\n";
  }

  /// Opens and closes a <g> element whose attributes (e.g. font-size="8" text-anchor="middle") apply to
  /// everything drawn in between.
  void begin_group(const std::string& attributes) { out_ << "<g " << attributes << ">\n"; }
  void end_group() { out_ << "</g>\n"; }

  /// The finished document: a white background (figures stay readable on dark themes) and a font stack.
  std::string str() const {
    std::ostringstream doc;
    doc << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w_ << "\" height=\"" << h_ << "\" viewBox=\"0 0 "
        << w_ << " " << h_ << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        << "<rect x=\"0\" y=\"0\" width=\"" << w_ << "\" height=\"" << h_ << "\" fill=\"#ffffff\"/>\n"
        << out_.str() << "</svg>\n";
    return doc.str();
  }

 private:
  static std::string escape(const std::string& s) {
    std::string r;
    for (char c : s) {
      if (c == '&') r += "&amp;";
      else if (c == '<') r += "&lt;";
      else if (c == '>') r += "&gt;";
      else r += c;
    }
    return r;
  }

  double w_ = 100, h_ = 100;
  std::ostringstream out_;
};

inline const char* const kMono = "font-family=\"Menlo, Consolas, 'DejaVu Sans Mono', monospace\"";
inline const char* const kBold = "font-weight=\"bold\"";

// Eight light, distinct colors (one per 16-byte chunk) and four for the warps of a warpgroup.
inline const char* const kChunkColors[8] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                     "#80b1d3", "#fdb462", "#b3de69", "#fccde5"};
inline const char* const kWarpColors[4] = {"#9ecae1", "#fdae6b", "#a1d99b", "#f4a6a6"};

inline std::string str(int v) { return std::to_string(v); }

/// A straight arrow from (x0, y0) to (x1, y1), its head at (x1, y1).
inline void arrow(Svg& svg, double x0, double y0, double x1, double y1, const std::string& color,
                  bool dashed = false) {
  svg.line(x0, y0, x1, y1, color, 1.4, dashed ? "stroke-dasharray=\"4 3\"" : "");
  const double dx = x1 - x0, dy = y1 - y0, len = std::sqrt(dx * dx + dy * dy), ux = dx / len, uy = dy / len;
  const double bx = x1 - 7 * ux, by = y1 - 7 * uy;
  svg.polygon(str(int(bx - 3.5 * uy)) + "," + str(int(by + 3.5 * ux)) + " " + str(int(bx + 3.5 * uy)) + "," +
                  str(int(by - 3.5 * ux)) + " " + str(int(x1)) + "," + str(int(y1)),
              color);
}

// The palette several pages share.
inline const char* const kParityFill[2] = {"#cfe2f3", "#fce5cd"};  // a barrier's phase of parity 0 / parity 1
inline const char* const kParityEdge[2] = {"#6d9eeb", "#e69138"};
inline const char* const kRed = "#cf222e";
inline const char* const kRedFill = "#ffebe9";
inline const char* const kGrey = "#57606a";

}  // namespace hg::figures
