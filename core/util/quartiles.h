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

// A box plot's five numbers: the quartiles and Tukey's whiskers, the most extreme values within
// 1.5 IQR of the box (values beyond are outliers, left out).
struct Distribution
{
    double low = 0;
    double q1 = 0;
    double median = 0;
    double q3 = 0;
    double high = 0;

    // All zero for an empty sample.
    static Distribution of(QVector<double> values);
};

}  // namespace ptwb
