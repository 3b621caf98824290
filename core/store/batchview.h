#pragma once

#include <QString>

#include <optional>

namespace ptwb {

// A training workload measured at several minibatch sizes is fitted, transferred and chosen from
// one batch size at a time: "resnet18@32" names the rows of workload "resnet18" taken at batch 32
// (Store::measurements, Store::summaries). Names ending in "@DIGITS" are reserved for these
// views: the store refuses a workload called that.
struct BatchView
{
    QString workload;  // the stored workload
    int batch = 0;  // its training minibatch size

    QString name() const;  // "resnet18@32"
    // The view a name stands for; nothing for a plain name (or a batch outside 1..4096).
    static std::optional<BatchView> of(const QString &name);
};

}  // namespace ptwb
