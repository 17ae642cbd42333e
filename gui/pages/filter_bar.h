// SPDX-License-Identifier: MIT
// The filter box above every tree and table: a pattern, "Regex" for a
// regular expression instead of a substring, and a line that states what
// the filter matched (functions, and their share of the chosen event,
// once per sample) or why the expression is invalid.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace cpcprof::gui {

class CostProxy;

class FilterBar : public QWidget {
    Q_OBJECT
  public:
    explicit FilterBar(QWidget *parent = nullptr);

    QLineEdit *edit() const { return edit_; }
    QCheckBox *regex() const { return regex_; }
    QLabel *status() const { return status_; }

    // Applies the pattern to proxies and states the result for event
    // (event's name and share) in status().  false for an invalid pattern.
    bool apply(const std::vector<CostProxy *> &proxies, int event);
    // Restates the last result for another event.
    void describe(const CostProxy &proxy, int event);
    // Clears the pattern (and the proxies' filters).
    void clear(const std::vector<CostProxy *> &proxies, int event);

  signals:
    // The pattern or the regex choice changed.
    void changed();

  private:
    QLineEdit *edit_;
    QCheckBox *regex_;
    QLabel *status_;
};

} // namespace cpcprof::gui
