// SPDX-License-Identifier: MIT
#include "gui/app/source_settings.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QVBoxLayout>

namespace cpcprof::gui {

namespace {

QStringList nonempty_lines(const QString &text) {
    QStringList out;
    for (const QString &l : text.split('\n'))
        if (!l.trimmed().isEmpty())
            out << l.trimmed();
    return out;
}

void add(analysis::SourceRoots *r, const QStringList &dirs, const QStringList &maps) {
    for (const QString &d : dirs)
        r->dirs.push_back(d.toStdString());
    for (const QString &m : maps) {
        std::pair<std::string, std::string> map;
        std::string error;
        if (analysis::parse_remap(m.toStdString(), &map, &error))
            r->remaps.push_back(map);
    }
}

} // namespace

analysis::SourceRoots source_roots(const QStringList &cli_dirs, const QStringList &cli_maps) {
    analysis::SourceRoots r;
    add(&r, cli_dirs, cli_maps);
    QSettings s;
    add(&r, s.value("source/dirs").toStringList(), s.value("source/pathMaps").toStringList());
    return r;
}

SourceSettingsDialog::SourceSettingsDialog(QWidget *parent)
    : QDialog(parent), dirs_(new QPlainTextEdit(this)), maps_(new QPlainTextEdit(this)),
      error_(new QLabel(this)) {
    setWindowTitle(tr("Source Directories"));
    setObjectName("sourceSettings");
    QSettings s;
    dirs_->setObjectName("sourceDirs");
    maps_->setObjectName("pathMaps");
    dirs_->setPlainText(s.value("source/dirs").toStringList().join('\n'));
    maps_->setPlainText(s.value("source/pathMaps").toStringList().join('\n'));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Directories to look for sources in, one a line (also: "
                                    "cpcprof-gui --source-dir DIR):")));
    layout->addWidget(dirs_);
    layout->addWidget(new QLabel(tr("Path prefixes that moved, one OLD=NEW a line (also: "
                                    "--path-map OLD=NEW):")));
    layout->addWidget(maps_);
    layout->addWidget(new QLabel(tr("Only regular files of at most 16 MiB under these "
                                    "directories, or where the profile says they were, are "
                                    "read; no '..', no symlink leading out of them.")));
    error_->setStyleSheet("color: #b00020");
    layout->addWidget(error_);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &SourceSettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void SourceSettingsDialog::accept() {
    QStringList maps = nonempty_lines(maps_->toPlainText());
    for (const QString &m : maps) {
        std::pair<std::string, std::string> map;
        std::string error;
        if (!analysis::parse_remap(m.toStdString(), &map, &error)) {
            error_->setText(QString::fromStdString(error));
            return;
        }
    }
    QSettings s;
    s.setValue("source/dirs", nonempty_lines(dirs_->toPlainText()));
    s.setValue("source/pathMaps", maps);
    QDialog::accept();
}

} // namespace cpcprof::gui
