// SPDX-License-Identifier: MIT
// The Summary page: the run, its accounting, what lacks symbols and how
// to fix it, and the top functions of the chosen event (summary.h).
#pragma once

#include "gui/model/profile_data.h"

#include <QWidget>

class QTextBrowser;

namespace cpcprof::gui {

class SummaryPage : public QWidget {
    Q_OBJECT
  public:
    explicit SummaryPage(QWidget *parent = nullptr);
    void setProfile(ProfilePtr profile);
    void setEvent(int event);
    // The page as plain text (what a user can copy).
    QString text() const;

  private:
    void refresh();
    QTextBrowser *view_;
    ProfilePtr profile_;
    int event_ = 0;
};

} // namespace cpcprof::gui
