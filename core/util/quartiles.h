#pragma once

#include <QVector>

namespace ptwb {

// Median and quartiles of a sample, by linear interpolation between order statistics (numpy's
// default), so figures match what a Python notebook prints.
struct Quartiles
{
    double median = 0;
    double q1 = 0;
    double q3 = 0;

    double interquartileRange() const { return q3 - q1; }
    // All zero for an empty sample.
    static Quartiles of(QVector<double> values);
};

}  // namespace ptwb
