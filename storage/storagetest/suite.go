package storagetest

import (
	"slices"
	"testing"
)

// The suite, one table per group of scenarios. Each scenario is a named
// function of the file of its concern (brands.go, auth_users.go,
// refdata_cities.go, ...) that opens the fresh stores it needs.

// runBrands runs the brand scenarios of auth.Store.
func runBrands(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testBrandCreateAndFind},
		{"NotFound", testBrandNotFound},
		{"Conflicts", testBrandConflicts},
		{"Update", testBrandUpdate},
		{"ListInCreationOrder", testBrandListInCreationOrder},
		{"ConcurrentCreates", testBrandConcurrentCreates},
		{"CancelledContext", testBrandCancelledContext},
	})
}

// runRefData runs the refdata.Store scenarios: the default dataset,
// filters, sorting and paging of currencies, countries and cities against
// the reference implementation, upserts and cancellation.
// With all unset (RunVariant), it runs only the cases that read or write
// through the store's transactions (sameForEveryOpening lists the others).
func runRefData(t *testing.T, newStore NewStore, all bool) {
	scenarios := []scenario{
		{"DefaultDatasetLoaded", testDefaultDatasetLoaded},
		{"CurrencyFilters", testCurrencyFilters},
		{"CountryFilters", testCountryFilters},
		{"CityFilters", testCityFilters},
		{"SortEveryField", testSortEveryField},
		{"Paging", testPaging},
		{"CitiesAgainstReference", testCitiesAgainstReference},
		{"CityShortNames", testCityShortNames},
		{"KeywordsAnyScript", testKeywordsAnyScript},
		{"UpsertCities", testUpsertCities},
		{"UpsertCurrenciesAndCountries", testUpsertCurrenciesAndCountries},
		{"CancelledContext", testRefDataCancelledContext},
		{"CreatedDateCurrencies", testCreatedDateCurrencies},
		{"CreatedDateCountries", testCreatedDateCountries},
		{"CreatedDateCities", testCreatedDateCities},
		{"ImportKeepsTags", testImportKeepsTags},
		{"RevisionCountsWrites", testRevisionCountsWrites},
		{"ReadRefData", testReadRefData},
		{"ChangesSince", testChangesSince},
		{"ChangesTooManyReadWhole", testChangesTooManyReadWhole},
		{"Generation", testGeneration},
		{"ReadIsOneTransaction", testReadIsOneTransaction},
		{"WritesElsewherePatchTheSnapshot", testWritesElsewherePatchTheSnapshot},
	}
	if !all {
		scenarios = slices.DeleteFunc(scenarios, func(sc scenario) bool { return sameForEveryOpening[sc.name] })
	}
	runScenarios(t, newStore, scenarios)
	if all {
		t.Run("NoOpWriteAfterAWriteElsewhere", func(t *testing.T) { testNoOpWriteAfterAWriteElsewhere(t, newStore) })
	}
}

// sameForEveryOpening are the reference-data cases whose outcome depends
// on the store's SQL and the list engine, not on how the store was
// opened (its connections, its file): the list engine's filters, sorting
// and paging over the default dataset, and the merges of upserts.
// RunVariant leaves them out.
var sameForEveryOpening = map[string]bool{
	"CurrencyFilters": true, "CountryFilters": true, "CityFilters": true, "SortEveryField": true, "Paging": true,
	"CitiesAgainstReference": true, "CityShortNames": true, "KeywordsAnyScript": true,
	"CreatedDateCurrencies": true, "CreatedDateCountries": true, "CreatedDateCities": true, "ImportKeepsTags": true,
}

// runAuth runs the auth.Store scenarios: users, key pairs and devices.
func runAuth(t *testing.T, newStore NewStore) {
	t.Run("Users", func(t *testing.T) { runUsers(t, newStore) })
	t.Run("KeyPairs", func(t *testing.T) { runKeyPairs(t, newStore) })
	t.Run("Devices", func(t *testing.T) { runDevices(t, newStore) })
	t.Run("Sessions", func(t *testing.T) { runSessions(t, newStore) })
	t.Run("Account", func(t *testing.T) { runAccount(t, newStore) })
}

// runUsers runs the auth.Store user scenarios.
func runUsers(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testUserCreateAndFind},
		{"NotFound", testUserNotFound},
		{"Conflicts", testUserConflicts},
		{"Update", testUserUpdate},
		{"ConcurrentUpdatesAreAtomic", testUserConcurrentUpdatesAreAtomic},
		{"ListInCreationOrder", testUserListInCreationOrder},
		{"CancelledContext", testUserCancelledContext},
	})
}

// runKeyPairs runs the auth.Store key pair scenarios.
func runKeyPairs(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndFind", testKeyPairCreateAndFind},
		{"CreateErrors", testKeyPairCreateErrors},
		{"Rotate", testKeyPairRotate},
		{"ConcurrentRotationsOneWins", testKeyPairConcurrentRotationsOneWins},
		{"Revoke", testKeyPairRevoke},
		{"DeleteExpired", testKeyPairDeleteExpired},
	})
}

// runDevices runs the auth.Store device scenarios.
func runDevices(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"UpsertAndFind", testDeviceUpsertAndFind},
		{"ListInCreationOrder", testDeviceListInCreationOrder},
		{"Revoke", testDeviceRevoke},
		{"SignedIn", testDeviceSignedIn},
		{"End", testDeviceEnd},
		{"Touch", testDeviceTouch},
	})
}
