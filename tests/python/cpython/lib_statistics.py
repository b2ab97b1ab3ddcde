import statistics
from statistics import mean, fmean, median, median_low, median_high, mode, multimode, stdev, pstdev, variance, pvariance

print(mean([1, 2, 3]), mean([1, 2]), mean([0.1, 0.2, 0.3]), mean([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]), mean(range(1, 11)))
print(fmean([1, 2]), fmean([3.5, 4.0, 5.25]), mean([True, False, True, True]))
print(median([1, 3, 5]), median([1, 3, 5, 7]), median([1, 3]), median([5]), median_low([1, 3, 5, 7]), median_high([1, 3, 5, 7]))
print(mode([1, 1, 2, 3, 3, 3, 4]), mode(["red", "blue", "blue", "red", "green", "red"]), multimode("aabbbbccddddeeffffgg"), multimode([]))
print(variance([2.75, 1.75, 1.25, 0.25, 0.5, 1.25, 3.5]), pvariance([0.0, 0.25, 0.25, 1.25, 1.5, 1.75, 2.75, 3.25]))
print(variance([1, 3]), variance([1, 2, 3, 4]), pvariance([1, 2, 3, 4]), variance([2.0, 2.0]))
print(stdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]), pstdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]), stdev([1, 3]), pstdev([2, 4, 4, 4, 5, 5, 7, 9]))
print(stdev([2, 4, 4, 4, 5, 5, 7, 9]), variance([0.1, 0.2, 0.3, 0.4]), stdev([10.5, 11.25, 9.75, 10.0]))
print(statistics.geometric_mean([1, 10, 100]) > 9.99, statistics.harmonic_mean([40, 60]), statistics.harmonic_mean([2.5, 3, 10]))
print(statistics.quantiles([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], n=4), statistics.quantiles([105, 129, 87, 86, 111, 111, 89, 81, 108, 92], n=10))
print(statistics.quantiles([1, 2, 3, 4, 5], n=4, method="inclusive"), statistics.median_grouped([52, 52, 53, 54]))
losses = [0.693, 0.512, 0.431, 0.402, 0.388]
print(round(mean(losses), 6), round(stdev(losses), 6), median(losses))
for bad in [lambda: mean([]), lambda: median([]), lambda: variance([1]), lambda: stdev([]), lambda: mode([])]:
    try:
        bad()
    except statistics.StatisticsError as e:
        print("StatisticsError", e)
print(issubclass(statistics.StatisticsError, ValueError))
print(statistics.covariance([1, 2, 3, 4], [1, 3, 2, 4]), round(statistics.correlation([1, 2, 3, 4], [2, 4, 5, 8]), 9))
lr = statistics.linear_regression([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
print(lr.slope, lr.intercept)
