// SPDX-License-Identifier: MIT
// The source roots of the viewer: directories and path-prefix remappings
// (OLD=NEW) kept in QSettings ("source/dirs", "source/pathMaps"), edited
// on the settings page (Settings > Source Directories), plus those of the
// command line (--source-dir, --path-map), which come first.
#pragma once

#include "profiler/analysis/source_access.h"

#include <QDialog>
#include <QStringList>

class QPlainTextEdit;
class QLabel;

namespace cpcprof::gui {

// The roots: command line's, then the settings'.  Bad OLD=NEW lines of
// the settings are left out (the page refuses to save them).
analysis::SourceRoots source_roots(const QStringList &cli_dirs, const QStringList &cli_maps);

class SourceSettingsDialog : public QDialog {
    Q_OBJECT
  public:
    explicit SourceSettingsDialog(QWidget *parent = nullptr);
    QPlainTextEdit *dirsEdit() const { return dirs_; }
    QPlainTextEdit *mapsEdit() const { return maps_; }
    // Saves to QSettings and accepts, or names the bad line and stays.
    void accept() override;

  private:
    QPlainTextEdit *dirs_, *maps_;
    QLabel *error_;
};

} // namespace cpcprof::gui
